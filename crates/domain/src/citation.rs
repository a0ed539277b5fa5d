//! Where a passage of a learner's own material comes from, written one way wherever it is
//! shown: a document's chunk, a draft's passage, a course's content, a tutor's reply.

/// The page (PDFs) and the headings a passage sits under: `p. 3, Chapter 2 > 2.1 Masks`;
/// `None` for a passage with neither.
pub fn section(page: Option<u32>, heading_path: &[String]) -> Option<String> {
    let headings = heading_path.join(" > ");
    match (page, headings.is_empty()) {
        (Some(page), true) => Some(format!("p. {page}")),
        (Some(page), false) => Some(format!("p. {page}, {headings}")),
        (None, false) => Some(headings),
        (None, true) => None,
    }
}

/// The file, then its [`section`]: `notes.pdf, p. 3, Chapter 2 Subnets > 2.1 Masks`.
pub fn citation(file: &str, page: Option<u32>, heading_path: &[String]) -> String {
    cite(file, section(page, heading_path).as_deref())
}

/// The file, then a [`section`] already written out (a course's content keeps it so).
pub fn cite(file: &str, section: Option<&str>) -> String {
    match section {
        Some(section) => format!("{file}, {section}"),
        None => file.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_citation_names_the_file_then_the_page_then_the_headings() {
        let headings = vec!["Chapter 2".to_string(), "2.1 Masks".to_string()];
        assert_eq!(citation("notes.pdf", Some(3), &headings), "notes.pdf, p. 3, Chapter 2 > 2.1 Masks");
        assert_eq!(citation("notes.md", None, &headings), "notes.md, Chapter 2 > 2.1 Masks");
        assert_eq!(citation("scan.pdf", Some(1), &[]), "scan.pdf, p. 1");
        assert_eq!(citation("plain.txt", None, &[]), "plain.txt");
        assert_eq!(section(None, &[]), None);
    }
}
