//! Where a recording's files go: `game.pcapng` first, then `game.1.pcapng`, `game.2.pcapng`...,
//! the oldest deleted once more than the kept count exist. Numbered upward, so that the newest
//! file is the one with the highest number and a file's name never changes while it is read.

use std::path::{Path, PathBuf};

/// The name of file `n` of a recording whose first file is `base`.
pub(crate) fn file_name(base: &Path, n: u64) -> PathBuf {
    if n == 0 {
        return base.to_path_buf();
    }
    let stem = base.file_stem().unwrap_or_default().to_string_lossy();
    let name = match base.extension() {
        Some(ext) => format!("{stem}.{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{n}"),
    };
    base.with_file_name(name)
}

/// The file to delete when file `n` opens and at most `keep` may exist.
pub(crate) fn dropped(base: &Path, n: u64, keep: u64) -> Option<PathBuf> {
    n.checked_sub(keep).map(|old| file_name(base, old))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_numbered_before_the_extension() {
        let base = Path::new("/tmp/x/game.pcapng");
        assert_eq!(file_name(base, 0), base);
        assert_eq!(file_name(base, 1), Path::new("/tmp/x/game.1.pcapng"));
        assert_eq!(file_name(base, 12), Path::new("/tmp/x/game.12.pcapng"));
        assert_eq!(file_name(Path::new("rec"), 2), Path::new("rec.2"));
    }

    #[test]
    fn the_oldest_goes_once_more_than_keep_exist() {
        let base = Path::new("game.pcapng");
        assert_eq!(dropped(base, 2, 3), None);
        assert_eq!(dropped(base, 3, 3), Some(base.to_path_buf()));
        assert_eq!(dropped(base, 5, 3), Some(PathBuf::from("game.2.pcapng")));
    }
}
