//! The demo's report as a page: each bot's connection over time, one plot per measure (RTT,
//! bytes per second, losses, retransmissions), drawn as inline SVG in one self-contained HTML
//! file that needs no script and nothing from the network to show.

use std::fmt::Write as _;
use std::path::Path;

use hopnet::{Stats, StatsSample};
use plotters::prelude::*;

/// One bot's samples, under the name its plots give it.
pub struct Track<'a> {
    pub name: String,
    pub samples: &'a [StatsSample],
}

/// A measure plotted: its title, its axis, and its value between two samples.
struct Measure {
    title: &'static str,
    unit: &'static str,
    value: fn(earlier: &StatsSample, now: &StatsSample) -> Option<f64>,
}

/// The measures, one plot each, in the page's order.
const MEASURES: [Measure; 4] = [
    Measure {
        title: "Round-trip time",
        unit: "smoothed RTT (ms)",
        value: |_, now| now.stats.smoothed_rtt.map(|d| d.as_secs_f64() * 1000.0),
    },
    Measure {
        title: "Bytes per second",
        unit: "bytes/s, sent and received",
        value: |earlier, now| {
            Some(now.per_second(earlier, |s: &Stats| s.bytes_sent + s.bytes_received))
        },
    },
    Measure {
        title: "Losses",
        unit: "reliable chunks lost (total)",
        value: |_, now| Some(now.stats.chunks_lost as f64),
    },
    Measure {
        title: "Retransmissions",
        unit: "reliable chunks sent again (total)",
        value: |_, now| Some(now.stats.retransmissions as f64),
    },
];

/// The titles of the page's plots, in order.
#[allow(dead_code)] // The report's test reads them.
pub fn titles() -> Vec<&'static str> {
    MEASURES.iter().map(|m| m.title).collect()
}

/// Writes the page to `path`, under `heading` (a line of plain text).
pub fn write_html(path: &Path, heading: &str, tracks: &[Track<'_>]) -> Result<(), String> {
    let html = render(heading, tracks)?;
    std::fs::write(path, html).map_err(|e| format!("{}: {e}", path.display()))
}

/// The page.
pub fn render(heading: &str, tracks: &[Track<'_>]) -> Result<String, String> {
    let mut html = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>Snow Fight demo report</title>\n<style>\n\
         body { font-family: sans-serif; margin: 2em; background: #fff; color: #222; }\n\
         section { margin-bottom: 2em; }\n</style>\n</head>\n<body>\n\
         <h1>Snow Fight demo report</h1>\n",
    );
    let _ = writeln!(html, "<p>{}</p>", escape(heading));
    for measure in &MEASURES {
        let _ = writeln!(html, "<section>\n<h2>{}</h2>", measure.title);
        html.push_str(&plot(measure, tracks)?);
        html.push_str("\n</section>\n");
    }
    html.push_str("</body>\n</html>\n");
    Ok(html)
}

/// One measure's plot, every bot a line.
fn plot(measure: &Measure, tracks: &[Track<'_>]) -> Result<String, String> {
    let lines: Vec<(&str, Vec<(f64, f64)>)> = tracks
        .iter()
        .map(|t| {
            let points = t
                .samples
                .windows(2)
                .filter_map(|w| Some((w[1].at.as_secs_f64(), (measure.value)(&w[0], &w[1])?)));
            (t.name.as_str(), points.collect())
        })
        .collect();
    let all = lines.iter().flat_map(|(_, p)| p.iter());
    let x_max = all.clone().map(|p| p.0).fold(1.0, f64::max);
    let y_max = all.map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 320)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(measure.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max)
            .map_err(draw_error)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc(measure.unit)
            .draw()
            .map_err(draw_error)?;
        for (i, (name, points)) in lines.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(2),
                ))
                .map_err(draw_error)?
                .label(*name)
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(draw_error)?;
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

fn draw_error(e: impl std::fmt::Display) -> String {
    format!("drawing the report: {e}")
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
