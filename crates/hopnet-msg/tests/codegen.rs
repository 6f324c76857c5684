//! `rabbit-msg codegen typescript` and `hopnet_msg::codegen` without Node: what they write,
//! that the module in `web/src/` is the one they write, and the errors for what they cannot
//! write, each naming its field. (`tests/typescript/` compiles and runs the modules.)

mod common;

use common::{run, stderr, stdout};
use hopnet_codec::{Encode, Rabbit};
use hopnet_msg::codegen::{CodegenError, TypeScript};

const CHECKED_IN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/src/messages.ts");

#[test]
fn the_module_in_web_is_the_generated_one() {
    let generated = hopnet_msg::codegen::typescript().generate().unwrap();
    let checked_in = std::fs::read_to_string(CHECKED_IN).unwrap_or_default();
    assert!(
        generated == checked_in,
        "web/src/messages.ts is not what the generator writes now; write it again with\n    \
         cargo run -p hopnet-msg -- codegen typescript --out web/src/messages.ts"
    );
}

#[test]
fn the_cli_writes_the_module_to_a_file_or_standard_output() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("codegen-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("messages.ts");
    let out = run(
        &["codegen", "typescript", "--out", file.to_str().unwrap()],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        written,
        hopnet_msg::codegen::typescript().generate().unwrap()
    );

    let out = run(&["codegen", "typescript"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), written);

    // Some types only: those and what they use.
    let out = run(&["codegen", "typescript", "Move"], "");
    let module = stdout(&out);
    assert!(module.contains("export function decodeMove(bytes: Uint8Array): Move"));
    assert!(module.contains("export type Direction = number;"));
    assert!(!module.contains("ServerMessage"));
}

/// One line on standard error, exit status 1.
fn fails(args: &[&str]) -> String {
    let out = run(args, "");
    assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stdout(&out));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(err.starts_with("error: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    err
}

#[test]
fn the_cli_names_the_field_it_cannot_generate() {
    let err = fails(&["codegen", "typescript", "rtype::Frame"]);
    assert!(err.contains("`Frame.") && err.contains("computed"), "{err}");
    let err = fails(&["codegen", "typescript", "woke::Packet"]);
    assert!(err.contains("`Packet::") && err.contains("to_end"), "{err}");
    let err = fails(&["codegen", "typescript", "semi_ordered::Datagram"]);
    assert!(err.contains("`Datagram`") && err.contains("msb"), "{err}");
    let err = fails(&["codegen", "typescript", "NoSuchMessage"]);
    assert!(
        err.contains("unknown message type `NoSuchMessage`"),
        "{err}"
    );
    fails(&["codegen", "cobol"]);
}

/// The error of generating the module of `T` alone, named `name`: the generator must refuse
/// it.
fn refused<T: Encode + ?Sized>(name: &str) -> CodegenError {
    TypeScript::new()
        .message::<T>(name)
        .generate()
        .expect_err("the generator refuses it")
}

/// Generating the module of `T` alone, named `name`, is refused naming `item`, for a reason
/// that says `why`.
fn assert_refused<T: Encode + ?Sized>(name: &str, item: &str, why: &str) {
    let err = refused::<T>(name);
    assert_eq!(err.item, item);
    assert!(err.reason.contains(why), "{err}");
}

#[test]
fn what_has_no_typescript_codec_is_an_error_naming_its_field() {
    mod degrees {
        use hopnet_codec::{BitReader, BitWriter, Result};
        pub fn encode(value: &u16, w: &mut BitWriter<'_>) -> Result<()> {
            w.write_bits(u64::from(*value), 9);
            Ok(())
        }
        pub fn decode(r: &mut BitReader<'_>) -> Result<u16> {
            Ok(r.read_bits(9)? as u16)
        }
    }
    #[derive(Rabbit)]
    struct Custom {
        #[rabbit(with = "degrees")]
        heading: u16,
    }
    assert_refused::<Custom>("Custom", "Custom.heading", "custom codec");

    #[derive(Rabbit)]
    #[allow(dead_code)]
    struct Skipped {
        on_the_wire: u8,
        #[rabbit(skip)]
        local_only: u8,
    }
    let err = refused::<Skipped>("Skipped");
    assert_eq!(err.item, "Skipped.local_only");

    #[derive(Rabbit)]
    #[rabbit(endian = "big")]
    struct Bytes {
        #[rabbit(bytes = 3)]
        id: u32,
    }
    let err = refused::<Bytes>("Bytes");
    assert_eq!(err.item, "Bytes.id");

    #[derive(Rabbit)]
    struct Nested {
        maybe: Option<Option<u8>>,
    }
    assert_refused::<Nested>("Nested", "Nested.maybe", "null");
}

const FAR: u8 = 100;

#[test]
fn a_condition_that_calls_rust_code_is_an_error_naming_its_field() {
    #[derive(Rabbit)]
    #[allow(dead_code)]
    struct Constant {
        distance: u8,
        #[rabbit(if = "*distance >= FAR")]
        warning: Option<u8>,
    }
    assert_refused::<Constant>("Constant", "Constant.warning", "`FAR`");

    #[derive(Rabbit)]
    #[allow(dead_code)]
    struct Macro {
        kind: Option<u8>,
        #[rabbit(if = "matches!(kind, Some(1))")]
        extra: Option<u8>,
    }
    assert_refused::<Macro>("Macro", "Macro.extra", "macro");
}

#[test]
fn two_types_of_one_name_or_a_name_typescript_needs_are_errors() {
    #[derive(Rabbit)]
    struct Wrapper<T: hopnet_codec::Encode + hopnet_codec::Decode> {
        inner: T,
    }
    #[derive(Rabbit)]
    struct Both {
        small: Wrapper<u8>,
        text: Wrapper<String>,
    }
    let err = refused::<Both>("Both");
    assert_eq!(err.item, "Wrapper");

    #[derive(Rabbit)]
    struct Uint8Array {
        byte: u8,
    }
    assert_refused::<Uint8Array>("bytes", "Uint8Array", "shadow");
}
