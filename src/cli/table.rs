//! Plain aligned text tables for terminal output.

/// A table with a header row; columns are padded to their widest cell.
#[derive(Debug, Default)]
pub struct Table {
    rows: Vec<Vec<String>>,
    right_align_from: usize,
}

impl Table {
    /// A table whose columns from `right_align_from` on are numbers (right-aligned).
    pub fn new(header: Vec<String>, right_align_from: usize) -> Self {
        Self { rows: vec![header], right_align_from }
    }

    /// Append a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Render with two spaces between columns and a rule under the header.
    pub fn render(&self) -> String {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let width = |c: usize| self.rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0);
        let widths: Vec<usize> = (0..cols).map(width).collect();
        let mut out = String::new();
        for (i, row) in self.rows.iter().enumerate() {
            let cells: Vec<String> = (0..cols)
                .map(|c| {
                    let cell = row.get(c).map(String::as_str).unwrap_or("");
                    let pad = widths[c].saturating_sub(cell.chars().count());
                    if c >= self.right_align_from && i > 0 {
                        format!("{}{cell}", " ".repeat(pad))
                    } else {
                        format!("{cell}{}", " ".repeat(pad))
                    }
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
            if i == 0 {
                out.push_str(&widths.iter().map(|w| "─".repeat(*w)).collect::<Vec<_>>().join("  "));
                out.push('\n');
            }
        }
        out
    }
}
