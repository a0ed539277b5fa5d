//! Text clean-up shared by every format, so chunks look the same whatever they came from.

const TAB_WIDTH: usize = 4;

/// Characters that carry no text and would only disturb search and hashing.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{00AD}' | '\u{200B}' | '\u{2060}' | '\u{FEFF}')
}

/// One line of running text: control characters dropped, every run of whitespace (line
/// breaks included) collapsed to one space, trimmed.
pub(crate) fn inline(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut pending_space = false;
    for c in raw.chars() {
        if is_invisible(c) {
            continue;
        }
        if c.is_whitespace() || c.is_control() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
    }
    out
}

/// Text whose line structure matters (code, tables, lists): each line keeps its indentation,
/// tabs become spaces, control characters go, trailing spaces and leading or trailing blank
/// lines are dropped, and runs of blank lines shrink to one.
pub(crate) fn preformatted(raw: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    for raw_line in raw.replace("\r\n", "\n").split(['\n', '\r', '\u{2028}', '\u{2029}']) {
        let mut line = String::with_capacity(raw_line.len());
        for c in raw_line.chars() {
            match c {
                '\t' => line.extend(std::iter::repeat_n(' ', TAB_WIDTH)),
                c if is_invisible(c) || c.is_control() => {}
                c if c.is_whitespace() => line.push(' '),
                c => line.push(c),
            }
        }
        let line = line.trim_end().to_owned();
        let blank_run = line.is_empty() && lines.last().is_none_or(|previous| previous.is_empty());
        if !blank_run {
            lines.push(line);
        }
    }
    while lines.last().is_some_and(|line| line.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_collapses_whitespace_and_drops_controls() {
        assert_eq!(inline("  a\tb\n\n c\u{0}d\u{7}  "), "a b c d");
        assert_eq!(inline("soft\u{00AD}hyphen\u{FEFF}"), "softhyphen");
        assert_eq!(inline("non\u{00A0}breaking"), "non breaking");
        assert_eq!(inline(" \n\t "), "");
    }

    #[test]
    fn preformatted_keeps_lines_and_indentation() {
        let code = "\n\nfn main() {\r\n\tprintln!(\"hi\");   \n\n\n\n}\u{0}\n\n";
        assert_eq!(preformatted(code), "fn main() {\n    println!(\"hi\");\n\n}");
        assert_eq!(preformatted("\n \n"), "");
    }
}
