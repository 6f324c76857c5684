//! The page built into the server is the page the sources make: `page/js/` is exactly what
//! `tsc` (strict, `web/tsconfig.page.json`) makes of `web/src/` now, and `snow_fight::web::PAGE`
//! serves every file of `page/`, each once.
//!
//! After changing `web/src/`, build the page again: `npm run build --prefix web`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use snow_fight::web::PAGE;

/// Every file under `dir`, by its path relative to `dir` (with `/`), with its contents.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path.strip_prefix(root).unwrap();
                let name = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                out.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn page_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("page")
}

#[test]
fn the_built_page_is_what_the_typescript_makes_now() {
    let tsc = web_toolchain::node_modules().join("typescript/bin/tsc");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("page-js");
    let _ = std::fs::remove_dir_all(&out);
    web_toolchain::node(
        &[
            &tsc,
            Path::new("-p"),
            &web_toolchain::web_dir().join("tsconfig.page.json"),
            Path::new("--outDir"),
            &out,
        ],
        "tsc -p web/tsconfig.page.json",
    );
    let made = files(&out);
    let checked_in = files(&page_dir().join("js"));
    let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&checked_in),
        names(&made),
        "page/js/ has other files than web/src/ makes: run `npm run build --prefix web`"
    );
    for (name, bytes) in &made {
        assert!(
            checked_in[name] == *bytes,
            "page/js/{name} is out of date: run `npm run build --prefix web`"
        );
    }
}

#[test]
fn the_server_serves_every_file_of_the_page() {
    let on_disk = files(&page_dir());
    let mut served = BTreeMap::new();
    for (path, _, body) in PAGE {
        let file = if *path == "/" {
            "index.html"
        } else {
            &path[1..]
        };
        assert!(
            served
                .insert(file.to_owned(), body.as_bytes().to_vec())
                .is_none(),
            "{path} twice"
        );
    }
    assert_eq!(
        served.keys().collect::<Vec<_>>(),
        on_disk.keys().collect::<Vec<_>>(),
        "snow_fight::web::PAGE and page/ differ"
    );
    assert_eq!(served, on_disk);
}
