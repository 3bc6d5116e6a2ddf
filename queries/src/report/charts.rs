//! The report's charts as inline SVG: small line charts (one per trend measure, sharing the
//! snapshots on the x axis) and the hotspot scatter (lines × commits). Every point is a link to
//! the table row it came from (`#<anchor>`) with a tooltip (`<title>`) stating its numbers, so
//! no number is only a picture. Coordinates are written with one decimal; the same data gives the
//! same bytes.

use crate::pictures::svg::{coord as num, escape};

/// `1234567` as `1,234,567`.
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// One point of a line chart.
pub struct LinePoint {
    /// The value, absent when the snapshot lacks the table.
    pub value: Option<i64>,
    /// Tooltip: what the point is.
    pub label: String,
    /// Anchor of its table row.
    pub anchor: String,
}

/// A small line chart of one measure over the snapshots, oldest left.
pub fn line_chart(title: &str, points: &[LinePoint]) -> String {
    const W: f64 = 300.0;
    const H: f64 = 130.0;
    const LEFT: f64 = 52.0;
    const TOP: f64 = 22.0;
    const BOTTOM: f64 = 16.0;
    let values: Vec<i64> = points.iter().filter_map(|p| p.value).collect();
    let (lo, hi) = match (values.iter().min(), values.iter().max()) {
        (Some(&lo), Some(&hi)) => (lo, hi),
        _ => (0, 0),
    };
    let span = (hi - lo).max(1) as f64;
    let n = points.len().max(1);
    let x = |i: usize| {
        if n == 1 {
            LEFT + (W - LEFT - 8.0) / 2.0
        } else {
            LEFT + (W - LEFT - 8.0) * i as f64 / (n - 1) as f64
        }
    };
    let y = |v: i64| TOP + (H - TOP - BOTTOM) * (1.0 - (v - lo) as f64 / span);
    let mut svg = format!(
        "<svg class=\"chart line\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"{t}\"><text class=\"chart-title\" x=\"4\" y=\"14\">{t}</text>",
        t = escape(title)
    );
    if values.is_empty() {
        svg.push_str(&format!(
            "<text class=\"empty\" x=\"{}\" y=\"{}\">not recorded</text></svg>",
            num(W / 2.0),
            num(H / 2.0)
        ));
        return svg;
    }
    for v in [hi, lo] {
        svg.push_str(&format!(
            "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><line class=\"grid\" x1=\"{LEFT}\" x2=\"{}\" y1=\"{yy}\" y2=\"{yy}\"/>",
            num(LEFT - 4.0),
            num(y(v) + 4.0),
            thousands(v),
            num(W - 8.0),
            yy = num(y(v))
        ));
    }
    // The line breaks where a snapshot lacks the measure.
    let mut d = String::new();
    let mut pen_down = false;
    for (i, p) in points.iter().enumerate() {
        match p.value {
            Some(v) => {
                d.push_str(&format!(
                    "{}{} {} ",
                    if pen_down { "L" } else { "M" },
                    num(x(i)),
                    num(y(v))
                ));
                pen_down = true;
            }
            None => pen_down = false,
        }
    }
    svg.push_str(&format!("<path class=\"series\" d=\"{}\"/>", d.trim_end()));
    // Many snapshots: smaller points, so the line stays visible between them.
    let r = if points.len() > 40 { 2 } else { 3 };
    for (i, p) in points.iter().enumerate() {
        if let Some(v) = p.value {
            svg.push_str(&format!(
                "<a href=\"#{}\"><circle class=\"point\" cx=\"{}\" cy=\"{}\" r=\"{r}\"><title>{}: {}</title></circle></a>",
                escape(&p.anchor),
                num(x(i)),
                num(y(v)),
                escape(&p.label),
                thousands(v)
            ));
        }
    }
    svg.push_str("</svg>");
    svg
}

/// One file of the hotspot scatter.
pub struct ScatterPoint {
    /// Lines of the file (x, log scale).
    pub lines: i64,
    /// Commits in the window (y).
    pub commits: i64,
    /// The file.
    pub path: String,
    /// Hotspot score.
    pub score: f64,
    /// Anchor of its table row.
    pub anchor: String,
}

/// Hotspots as a scatter: size (lines, log scale) against churn (commits); the `labelled` hottest
/// are orange and named where their names do not overlap. Points come best first.
pub fn scatter(points: &[ScatterPoint], labelled: usize) -> String {
    const W: f64 = 720.0;
    const H: f64 = 340.0;
    const LEFT: f64 = 56.0;
    const RIGHT: f64 = 16.0;
    const TOP: f64 = 16.0;
    const BOTTOM: f64 = 40.0;
    let max_lines = points.iter().map(|p| p.lines).max().unwrap_or(1).max(10);
    let max_commits = points.iter().map(|p| p.commits).max().unwrap_or(1).max(1);
    let log_max = (1.0 + max_lines as f64).log10();
    let x = |lines: i64| LEFT + (W - LEFT - RIGHT) * (1.0 + lines.max(0) as f64).log10() / log_max;
    let y = |commits: i64| TOP + (H - TOP - BOTTOM) * (1.0 - commits as f64 / max_commits as f64);
    let mut svg = format!(
        "<svg class=\"chart scatter\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"hotspots: lines against commits\">"
    );
    // Axes: powers of ten of lines, a few commit counts, each a grid line with its tick label.
    // Both are bounded whatever the values (a snapshot's rows are data: a count near i64::MAX
    // must not make them endless).
    let decades = (0..=18)
        .map(|k| 10i64.pow(k))
        .take_while(|&d| d <= max_lines)
        .map(|decade| {
            let xx = num(x(decade));
            let line = [xx.clone(), xx.clone(), TOP.to_string(), num(H - BOTTOM)];
            (
                line,
                [xx, num(H - BOTTOM + 14.0)],
                "middle",
                thousands(decade),
            )
        });
    let step = (max_commits as f64 / 4.0).ceil().max(1.0) as i64;
    let commit_ticks = (0..=4)
        .map(|i| step.saturating_mul(i))
        .take_while(|&c| c <= max_commits)
        .map(|c| {
            let yy = num(y(c));
            let line = [LEFT.to_string(), num(W - RIGHT), yy.clone(), yy];
            (
                line,
                [num(LEFT - 6.0), num(y(c) + 4.0)],
                "end",
                c.to_string(),
            )
        });
    for ([x1, x2, y1, y2], [tx, ty], anchor, label) in decades.chain(commit_ticks) {
        svg.push_str(&format!(
            "<line class=\"grid\" x1=\"{x1}\" x2=\"{x2}\" y1=\"{y1}\" y2=\"{y2}\"/><text class=\"tick\" x=\"{tx}\" y=\"{ty}\" text-anchor=\"{anchor}\">{label}</text>"
        ));
    }
    svg.push_str(&format!(
        "<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">lines in the file (log scale)</text><text class=\"axis\" transform=\"rotate(-90)\" x=\"{}\" y=\"14\" text-anchor=\"middle\">commits in 90 days</text>",
        num((LEFT + W - RIGHT) / 2.0),
        num(H - 6.0),
        num(-(TOP + H - BOTTOM) / 2.0)
    ));
    // The hottest are named, hottest first, where the name does not cover another name.
    let mut names = String::new();
    let mut placed: Vec<(f64, f64, f64)> = Vec::new();
    for p in points.iter().take(labelled) {
        let name = p.path.rsplit('/').next().unwrap_or(&p.path);
        let (lx, ly) = (x(p.lines) + 7.0, y(p.commits) - 6.0);
        let width = name.chars().count() as f64 * 5.8;
        let free = placed
            .iter()
            .all(|&(px, py, pw)| lx + width < px || px + pw < lx || (ly - py).abs() >= 11.0);
        if free && lx + width <= W {
            placed.push((lx, ly, width));
            names.push_str(&format!(
                "<text class=\"point-label\" x=\"{}\" y=\"{}\">{}</text>",
                num(lx),
                num(ly),
                escape(name)
            ));
        }
    }
    // Hottest drawn last, on top.
    for (i, p) in points.iter().enumerate().rev() {
        let hot = i < labelled;
        svg.push_str(&format!(
            "<a href=\"#{}\"><circle class=\"point{}\" cx=\"{}\" cy=\"{}\" r=\"{}\"><title>{}: {} commits, {} lines, score {}</title></circle></a>",
            escape(&p.anchor),
            if hot { " hot" } else { "" },
            num(x(p.lines)),
            num(y(p.commits)),
            if hot { 5 } else { 3 },
            escape(&p.path),
            p.commits,
            thousands(p.lines),
            num(p.score)
        ));
    }
    svg.push_str(&names);
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The axes take a bounded number of ticks whatever the counts (a hang on a snapshot whose
    /// rows claim i64::MAX lines or commits before), and the usual ones for usual counts.
    #[test]
    fn scatter_axes_are_bounded_at_the_ends_of_i64() {
        let point = |lines, commits| ScatterPoint {
            lines,
            commits,
            path: "a.rs".into(),
            score: 1.0,
            anchor: "hot-0".into(),
        };
        let ticks = |svg: &str| svg.matches("class=\"tick\"").count();
        let huge = scatter(&[point(i64::MAX, i64::MAX)], 1);
        assert_eq!(
            ticks(&huge),
            19 + 5,
            "10^0..10^18 lines; 0, ¼, ½, ¾ and all of the commits"
        );
        let usual = scatter(&[point(1500, 8)], 1);
        // 1, 10, 100, 1000 lines; 0, 2, 4, 6, 8 commits.
        assert_eq!(ticks(&usual), 4 + 5, "{usual}");
    }

    #[test]
    fn numbers_read_well() {
        for (n, written) in [(0, "0"), (1234567, "1,234,567"), (-1000, "-1,000")] {
            assert_eq!(thousands(n), written);
        }
    }

    #[test]
    fn a_line_breaks_where_a_value_is_missing_and_points_link_to_rows() {
        let p = |v: Option<i64>, i: usize| LinePoint {
            value: v,
            label: format!("s{i}"),
            anchor: format!("trend-{i}"),
        };
        let svg = line_chart(
            "files",
            &[p(Some(1), 0), p(None, 1), p(Some(3), 2), p(Some(2), 3)],
        );
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(svg.contains("href=\"#trend-2\""));
        assert_eq!(
            svg.matches('M').count() - svg.matches("Math").count(),
            2,
            "{svg}"
        );
        assert!(line_chart("x", &[p(None, 0)]).contains("not recorded"));
    }
}
