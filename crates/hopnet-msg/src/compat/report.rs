//! The report as text for a developer and as JSON for a program.

use super::{Change, Reading, Report};

impl Report {
    /// One paragraph a change, then a summary line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for c in &self.changes {
            out.push_str(&c.to_text());
            out.push('\n');
        }
        let breaking = self.changes.iter().filter(|c| !c.compatible()).count();
        out.push_str(&match (self.changes.len(), breaking) {
            (0, _) => "no changes: the two schemas write the same bytes\n".to_string(),
            (n, 0) => format!("{n} change(s), none breaking\n"),
            (n, b) => format!("{n} change(s), {b} breaking\n"),
        });
        out
    }

    /// `{"breaking": bool, "changes": [{item, what, old_reads_new, new_reads_old, why,
    /// compatible}]}`, one line.
    pub fn to_json(&self) -> String {
        let changes: Vec<serde_json::Value> = self
            .changes
            .iter()
            .map(|c| {
                let mut v = serde_json::to_value(c).unwrap_or_default();
                v["compatible"] = c.compatible().into();
                v
            })
            .collect();
        serde_json::json!({"breaking": self.breaking(), "changes": changes}).to_string()
    }
}

impl Change {
    /// `BREAKING Type.field: what` with both readings and the reason below it.
    pub fn to_text(&self) -> String {
        let verdict = if self.compatible() {
            "compatible"
        } else {
            "BREAKING"
        };
        format!(
            "{verdict} {}: {}\n  old peers reading the new wire: {}\n  new peers reading the old wire: {}\n  why: {}\n",
            self.item,
            self.what,
            words(self.old_reads_new),
            words(self.new_reads_old),
            self.why
        )
    }
}

fn words(r: Reading) -> &'static str {
    match r {
        Reading::Reads => "read it",
        Reading::RejectsWhenMet => "refuse it only when they meet it",
        Reading::Breaks => "break",
    }
}
