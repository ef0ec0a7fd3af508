//! The report's renderings of [`Report`]: inline SVG plots drawn by `plotters`, the
//! HTML page and the Markdown through `minijinja` templates (`templates/`), one CSV per
//! table through `csv`, and `data.json` through serde. Nothing here measures.

use plotters::prelude::*;
use serde::Serialize;

use super::machine::Header;
use super::model::{Cell, Plot, Section, Style, Table};
use crate::CliError;

/// The whole report, as `data.json` holds it.
#[derive(Serialize, Clone, Debug)]
pub struct Report {
    /// What ran, where and when.
    pub header: Header,
    /// The sections, in order.
    pub sections: Vec<Section>,
}

/// The HTML page's template.
const HTML: &str = include_str!("templates/index.html");
/// The Markdown's template.
const MARKDOWN: &str = include_str!("templates/report.md");

/// A plot's size in SVG pixels (the page scales it to the screen's width).
const PLOT_SIZE: (u32, u32) = (800, 440);

/// Colours of the series, in order: distinguishable in print and for most colour
/// vision deficiencies (Okabe-Ito).
const COLOURS: [RGBColor; 6] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
];

/// The plot as an SVG document.
pub fn svg(plot: &Plot) -> Result<String, CliError> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, PLOT_SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let xs = plot
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0));
        let ys = plot
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .chain(plot.reference_y);
        let (x0, x1) = padded(super::experiments::span(xs).unwrap_or((0.0, 1.0)), false);
        let (y0, y1) = padded(super::experiments::span(ys).unwrap_or((0.0, 1.0)), true);
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(72)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc(plot.x_label.as_str())
            .y_desc(plot.y_label.as_str())
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 15))
            .light_line_style(WHITE.mix(0.0))
            .x_label_formatter(&|v| human(*v))
            .y_label_formatter(&|v| human(*v))
            .draw()?;
        if let Some(y) = plot.reference_y {
            chart.draw_series(DashedLineSeries::new(
                vec![(x0, y), (x1, y)],
                6,
                4,
                BLACK.mix(0.6).stroke_width(1),
            ))?;
        }
        for (i, s) in plot.series.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            match s.style {
                Style::Line => {
                    chart
                        .draw_series(LineSeries::new(
                            s.points.iter().copied(),
                            colour.stroke_width(2),
                        ))?
                        .label(s.name.as_str())
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                        });
                    chart.draw_series(
                        s.points.iter().map(|&p| Circle::new(p, 2, colour.filled())),
                    )?;
                }
                Style::Points => {
                    chart
                        .draw_series(
                            s.points
                                .iter()
                                .map(|&p| Cross::new(p, 6, colour.stroke_width(2))),
                        )?
                        .label(s.name.as_str())
                        .legend(move |(x, y)| Cross::new((x + 10, y), 6, colour.stroke_width(2)));
                }
            }
        }
        chart
            .configure_series_labels()
            .label_font(("sans-serif", 14))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
        root.present()?;
    }
    Ok(buf)
}

/// A range with 5% room on each side; `from_zero` starts a positive range at 0 so that
/// ratios and cycle counts are seen to scale.
fn padded((lo, hi): (f64, f64), from_zero: bool) -> (f64, f64) {
    let lo = if from_zero && lo > 0.0 { 0.0 } else { lo };
    let pad = ((hi - lo) * 0.05).max(1e-9);
    (
        if from_zero && lo == 0.0 {
            0.0
        } else {
            lo - pad
        },
        hi + pad,
    )
}

/// The table as CSV: the headings, then one line per row; numbers in Rust's shortest
/// round-trip form (the same value as `data.json`'s), missing values empty.
pub fn csv(table: &Table) -> Result<String, CliError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&table.columns)?;
    for row in &table.rows {
        w.write_record(row.iter().map(|c| match c {
            Cell::Num(v) => v.to_string(),
            Cell::Text(t) => t.clone(),
            Cell::Missing => String::new(),
        }))?;
    }
    let bytes = w.into_inner().map_err(|e| CliError(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| CliError(e.to_string()))
}

/// A number for people: integers as they are, others to three significant digits
/// (no exponent form below 10^15).
pub fn human(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v}")
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// HTML of a sentence written with Markdown's inline code (the findings, sources and
/// header lines are shared with `report.md`): the text escaped, each `...` span as
/// `<code>`; an unpaired backtick stays as it is.
fn inline_code_html(text: &str) -> String {
    let escaped = minijinja::HtmlEscape(text).to_string();
    let mut parts: Vec<String> = escaped.split('`').map(str::to_string).collect();
    if parts.len().is_multiple_of(2) {
        // An odd number of backticks: the last one opens no span.
        let last = parts.pop().unwrap_or_default();
        if let Some(before) = parts.last_mut() {
            before.push('`');
            before.push_str(&last);
        }
    }
    let mut html = String::with_capacity(escaped.len());
    for (i, part) in parts.iter().enumerate() {
        if i % 2 == 1 {
            html.push_str("<code>");
            html.push_str(part);
            html.push_str("</code>");
        } else {
            html.push_str(part);
        }
    }
    html
}

/// The templates' environment: `human` formats a number, `code` renders a sentence's
/// inline code for the HTML page; SVG and the plots' files are passed in as values.
fn env() -> Result<minijinja::Environment<'static>, CliError> {
    let mut env = minijinja::Environment::new();
    env.add_filter("code", |text: String| {
        minijinja::Value::from_safe_string(inline_code_html(&text))
    });
    env.add_filter("human", |v: minijinja::Value| -> String {
        match f64::try_from(v.clone()) {
            Ok(f) if !v.is_none() && !v.is_undefined() => human(f),
            _ => v.to_string(),
        }
    });
    env.add_template("index.html", HTML)?;
    env.add_template("report.md", MARKDOWN)?;
    Ok(env)
}

/// The rendered plots of one section, in the order of its `plots`.
#[derive(Serialize)]
struct Drawn {
    id: String,
    title: String,
    svg: String,
}

/// The HTML page and the Markdown, with the SVG of every plot (`id` -> SVG).
pub fn pages(report: &Report, svgs: &[(String, String)]) -> Result<(String, String), CliError> {
    let env = env()?;
    let drawn: Vec<Vec<Drawn>> = report
        .sections
        .iter()
        .map(|s| {
            s.plots
                .iter()
                .map(|p| Drawn {
                    id: p.id.clone(),
                    title: p.title.clone(),
                    svg: svgs
                        .iter()
                        .find(|(id, _)| *id == p.id)
                        .map(|(_, svg)| svg.clone())
                        .unwrap_or_default(),
                })
                .collect()
        })
        .collect();
    let ctx = minijinja::context! {
        header => &report.header,
        sections => &report.sections,
        drawn => minijinja::Value::from_serialize(&drawn),
    };
    let html = env.get_template("index.html")?.render(&ctx)?;
    let md = env.get_template("report.md")?.render(&ctx)?;
    Ok((html, md))
}

#[cfg(test)]
mod tests {
    #[test]
    fn inline_code_becomes_code_elements_after_escaping() {
        assert_eq!(
            super::inline_code_html("a `x<y` b & `c`"),
            "a <code>x&lt;y</code> b &amp; <code>c</code>"
        );
        assert_eq!(super::inline_code_html("one ` only"), "one ` only");
    }
}
