//! What the contract's example programs share: the deadline, the exit code and error lines,
//! the `--loss` impairment, the client's driver and last line, and the server's loop that prints its
//! counts whenever they change (so that its last line is a summary however it ends).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use hopnet::Driver;
use hopnet::Impairment;
use hopnet::Machine;

/// `--loss P` (ours, on either side): that share of the program's outgoing datagrams
/// dropped.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct Loss {
    /// The share of outgoing datagrams dropped.
    #[arg(long = "loss", default_value_t = 0.0)]
    pub share: f64,
}

/// What every contract client is told: where, how many, how large.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct Echoes {
    /// The server's address.
    #[arg(long)]
    pub connect: SocketAddr,
    /// How many messages.
    #[arg(long)]
    pub count: u32,
    /// Bytes per message (at least 4: the index comes first).
    #[arg(long)]
    pub size: usize,
}

/// Every program's deadline.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// The impairment `--loss` asks for.
fn impairment(loss: Loss) -> Option<Impairment> {
    (loss.share > 0.0).then(|| Impairment {
        loss: loss.share,
        ..Impairment::default()
    })
}

/// A client's driver for `machine`: bound on `connect`'s family, any port, with `--loss`
/// applied. The error is the reason a failed client's last line gives.
pub fn client_driver<M: Machine>(
    connect: SocketAddr,
    machine: M,
    loss: Loss,
) -> Result<Driver<M>, String> {
    let mut driver = Driver::bind(local_for(connect), machine).map_err(|e| format!("bind: {e}"))?;
    driver.set_impairment(impairment(loss));
    Ok(driver)
}

/// Flushes what the client still has to send, then prints its last line: the summary alone
/// if there was no `error` and the echoes kept the contract (`succeeded`), otherwise the
/// summary with the first reason it failed. Returns whether it succeeded.
pub fn finish<M: Machine>(
    driver: &mut Driver<M>,
    mut error: Option<String>,
    summary: &str,
    succeeded: bool,
) -> bool {
    if let Err(e) = driver.flush() {
        error.get_or_insert(format!("socket: {e}"));
    }
    match error {
        Some(error) => fail(summary, &error),
        None if !succeeded => fail(summary, "the echoes broke the contract"),
        None => {
            println!("{summary}");
            true
        }
    }
}

/// The unspecified address of `connect`'s family, any port.
fn local_for(connect: SocketAddr) -> SocketAddr {
    let any = if connect.is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    };
    any.parse().expect("an address")
}

/// The exit code of a run; an error is printed as the last line too.
pub fn exit(result: Result<bool, hopnet::Error>) -> ExitCode {
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            println!("{{\"error\":{:?}}}", e.to_string());
            ExitCode::FAILURE
        }
    }
}

/// A client's last line when it fails: its summary so far with an `"error"` field saying why.
pub fn summary_with_error(summary: &str, error: &str) -> String {
    let error = serde_json::to_string(error).expect("a string serialises");
    match summary.strip_suffix('}') {
        Some(fields) if fields.len() > 1 => format!("{fields},\"error\":{error}}}"),
        _ => format!("{{\"error\":{error}}}"),
    }
}

/// Prints a failed client's last line (see [`summary_with_error`]) and its error on stderr.
pub fn fail(summary: &str, error: &str) -> bool {
    eprintln!("error: {error}");
    println!("{}", summary_with_error(summary, error));
    false
}

/// Serves `machine` on `bind` until the deadline, printing `summary`'s counts as JSON
/// whenever they change (at most once a second) and at the end; returns the last counts.
pub fn serve<M: Machine, S: PartialEq>(
    bind: SocketAddr,
    machine: M,
    loss: Loss,
    summary: impl Fn(&M) -> (S, Vec<(&'static str, u64)>),
) -> Result<S, hopnet::Error> {
    let mut driver = Driver::bind(bind, machine)?;
    driver.set_impairment(impairment(loss));
    eprintln!("listening on {}", driver.local_addr()?);
    let start = Instant::now();
    let mut printed: Option<S> = None;
    let mut last_print = start;
    loop {
        driver.poll(Duration::from_millis(50))?;
        let now = Instant::now();
        let (counts, fields) = summary(driver.machine());
        let done = now >= start + DEADLINE;
        let changed = printed.as_ref() != Some(&counts);
        if done || (changed && now >= last_print + Duration::from_secs(1)) {
            let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            println!("{{{}}}", body.join(","));
            last_print = now;
            printed = Some(counts);
        }
        if done {
            return Ok(printed.expect("printed at the end"));
        }
    }
}
