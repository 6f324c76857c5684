//! With the `agones` feature, compiles the Agones SDK's own `.proto` files (the repository's
//! `third_party/agones/proto/`, copied from the SDK with their licences and never edited) into the server side of its gRPC services: the stand-in SDK
//! server of `fleet::standin` answers the real SDK client with them. The client side comes
//! from the `agones` crate, so only servers are generated here.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "agones")]
    agones_servers();
}

#[cfg(feature = "agones")]
fn agones_servers() {
    const PROTO: &str = "../../third_party/agones/proto";
    println!("cargo:rerun-if-changed={PROTO}");
    let compiled = tonic_build::configure()
        .build_client(false)
        .build_server(true)
        .compile_protos(
            &[
                format!("{PROTO}/sdk/sdk.proto"),
                format!("{PROTO}/sdk/alpha/alpha.proto"),
                format!("{PROTO}/sdk/beta/beta.proto"),
            ],
            &[
                format!("{PROTO}/sdk"),
                format!("{PROTO}/googleapis"),
                format!("{PROTO}/grpc-gateway"),
            ],
        );
    if let Err(e) = compiled {
        panic!(
            "cannot compile the Agones SDK's .proto files ({e}); the `agones` feature needs \
             protoc, the protobuf compiler (Debian: apt-get install protobuf-compiler)"
        );
    }
}
