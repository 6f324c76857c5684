//! Rows, tables, JSON and the machine description.

use std::fmt::Write as _;

/// One measured row: a peer on a case.
#[derive(Debug, Clone)]
pub struct Row {
    /// `codec` or `transport`.
    pub suite: &'static str,
    /// `hopnet-codec`, `bitcode`, ... / `hopnet`, `laminar`, ...
    pub peer: String,
    /// `encode`, `encode-fresh`, `decode`, `reliable-1k`, ...
    pub case: String,
    /// The median time (per operation, per message, or per round trip).
    pub median_ns: Option<f64>,
    /// Encoded size (codec), message size (transport), or wire bytes per tick and direction
    /// (`tick-10x100`).
    pub bytes: Option<u64>,
    /// The peer's median over hopnet-codec's / hopnet's on the same case.
    pub ratio: Option<f64>,
    /// Free text shown in the table (throughput, spread, why a cell is empty).
    pub note: String,
    /// The ratio compares `bytes`, not `median_ns`: a case about wire bytes, whose time means
    /// nothing (`tick-10x100`).
    pub bytes_ratio: bool,
}

/// What a row's ratio compares: its time, or for a byte case its bytes.
fn measure(row: &Row) -> Option<f64> {
    if row.bytes_ratio {
        row.bytes.map(|b| b as f64)
    } else {
        row.median_ns
    }
}

/// Fills in `ratio` against the rows of `reference` for the same case.
pub fn fill_ratios(rows: &mut [Row], reference: &str) {
    let refs: Vec<(String, f64)> = rows
        .iter()
        .filter(|r| r.peer == reference)
        .filter_map(|r| measure(r).map(|m| (r.case.clone(), m)))
        .collect();
    for row in rows.iter_mut() {
        // `decode-reused` has no rabbit twin: it is compared with hopnet-codec's `decode`.
        let stem = row.case.trim_end_matches("-reused");
        let base = refs
            .iter()
            .find(|(c, _)| *c == row.case)
            .or_else(|| refs.iter().find(|(c, _)| c == stem))
            .map(|(_, m)| *m);
        row.ratio = match (measure(row), base) {
            (Some(m), Some(b)) if b > 0.0 => Some(m / b),
            _ => None,
        };
    }
}

/// Human-readable time.
pub fn fmt_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// A Markdown table of the rows.
pub fn table(rows: &[Row], reference: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| peer | case | median | bytes | ratio (peer / {reference}) | note |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---|");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            r.peer,
            r.case,
            r.median_ns.map_or("—".into(), fmt_ns),
            r.bytes.map_or("—".into(), |b| b.to_string()),
            r.ratio.map_or("—".into(), |x| format!("{x:.2}")),
            r.note
        );
    }
    s
}

/// A Markdown table of every peer's speed on each case as a share of `floor`'s: the floor's
/// median time over the peer's, so for a throughput case the peer's rate over the floor's
/// (hopnet's 0.33 reads "a third of what the floor moves"). Only the cases the floor measured;
/// `None` if it measured none.
pub fn shares(rows: &[Row], floor: &str) -> Option<String> {
    let measured = |r: &Row| r.median_ns.filter(|_| !r.bytes_ratio);
    let cases: Vec<(&str, f64)> = rows
        .iter()
        .filter(|r| r.peer == floor)
        .filter_map(|r| measured(r).map(|m| (r.case.as_str(), m)))
        .collect();
    if cases.is_empty() {
        return None;
    }
    let mut peers: Vec<&str> = Vec::new();
    for r in rows {
        if r.peer != floor && !peers.contains(&r.peer.as_str()) {
            peers.push(&r.peer);
        }
    }
    let mut s = String::new();
    let heads: Vec<String> = peers.iter().map(|p| format!("{p} / {floor}")).collect();
    let _ = writeln!(s, "| case | {} |", heads.join(" | "));
    let _ = writeln!(s, "|---|{}", "---:|".repeat(peers.len()));
    for (case, base) in cases {
        let cells: Vec<String> = peers
            .iter()
            .map(|peer| {
                rows.iter()
                    .find(|r| r.peer == *peer && r.case == case)
                    .and_then(measured)
                    .filter(|m| *m > 0.0)
                    .map_or("—".into(), |m| format!("{:.2}", base / m))
            })
            .collect();
        let _ = writeln!(s, "| {case} | {} |", cells.join(" | "));
    }
    Some(s)
}

/// The rows as the JSON list, keys in the order:
/// `{"suite", "peer", "case", "median_ns", "bytes", "ratio"}`, then the table's `note` (what a
/// row's numbers mean: throughput, datagrams per tick, whether every message arrived).
pub fn json(rows: &[Row]) -> String {
    let text = |s: &str| serde_json::Value::from(s).to_string();
    let num = |v: Option<String>| v.unwrap_or_else(|| "null".into());
    let items: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "  {{\"suite\": {}, \"peer\": {}, \"case\": {}, \"median_ns\": {}, \"bytes\": {}, \"ratio\": {}, \"note\": {}}}",
                text(r.suite),
                text(&r.peer),
                text(&r.case),
                num(r.median_ns.map(|m| format!("{}", m.round() as u64))),
                num(r.bytes.map(|b| b.to_string())),
                num(r.ratio.map(|x| format!("{x:.3}"))),
                text(&r.note),
            )
        })
        .collect();
    format!("[\n{}\n]\n", items.join(",\n"))
}

/// CPU model, cores, the compiler's version, load: the machine the numbers are from.
pub fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown CPU".into());
    let mhz = cpuinfo
        .lines()
        .find(|l| l.starts_with("cpu MHz"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_string());
    // The processors in /proc/cpuinfo, not `available_parallelism`: after the transport suite
    // pins the harness's thread, that says one.
    let cores = cpuinfo
        .lines()
        .filter(|l| l.starts_with("processor"))
        .count();
    // Recorded by build.rs: the compiler that built what is measured.
    let rustc = env!("BENCH_RUSTC_VERSION");
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    format!(
        "{model}{}, {cores} cores, {rustc}, load average {load}",
        mhz.map_or(String::new(), |m| format!(" @ {m} MHz"))
    )
}

/// The median of some samples (sorted in place).
/// Keeps a round's outcome or its error, and says which on standard error (`describe` gives
/// the outcome's line).
pub fn keep<T>(
    result: Result<T, String>,
    outcomes: &mut Vec<T>,
    errors: &mut Vec<String>,
    describe: impl FnOnce(&T) -> String,
) {
    match result {
        Ok(o) => {
            eprintln!("{}", describe(&o));
            outcomes.push(o);
        }
        Err(e) => {
            eprintln!("error: {e}");
            errors.push(e);
        }
    }
}

/// The note of the rounds that failed, each distinct error once, if any did.
pub fn failures(errors: &[String], rounds: usize) -> Option<String> {
    if errors.is_empty() {
        return None;
    }
    let mut distinct = errors.to_vec();
    distinct.dedup();
    Some(format!(
        "failed in {} of {rounds} rounds: {}",
        errors.len(),
        distinct.join("; ")
    ))
}

pub fn median(samples: &mut [f64]) -> Option<f64> {
    quantile(samples, 0.5)
}

/// The `q` quantile (nearest rank) of some samples (sorted in place).
pub fn quantile(samples: &mut [f64], q: f64) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    let idx = ((samples.len() as f64 * q).ceil() as usize).clamp(1, samples.len()) - 1;
    Some(samples[idx])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(peer: &str, case: &str, median_ns: Option<f64>) -> Row {
        Row {
            suite: "transport",
            peer: peer.into(),
            case: case.into(),
            median_ns,
            bytes: None,
            ratio: None,
            note: String::new(),
            bytes_ratio: false,
        }
    }

    #[test]
    fn a_share_is_the_floors_time_over_the_peers() {
        let rows = [
            row("floor", "reliable-1k", Some(200.0)),
            row("hopnet", "reliable-1k", Some(600.0)),
            row("tcp", "reliable-1k", Some(250.0)),
            row("floor", "reliable-1k-loss5", None),
            row("hopnet", "reliable-1k-loss5", Some(9000.0)),
            row("tcp", "reliable-64k", None),
        ];
        let table = shares(&rows, "floor").unwrap();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines[0], "| case | hopnet / floor | tcp / floor |");
        assert_eq!(lines[2], "| reliable-1k | 0.33 | 0.80 |");
        // The cases the floor did not measure have no row.
        assert_eq!(lines.len(), 3);
        assert_eq!(shares(&rows[3..], "floor"), None);
    }
}
