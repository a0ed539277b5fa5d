//! The courses shipped with Pathwise, written for it (`courses/`).

use crate::course::Course;
use crate::pack::PackFormat;
use pathwise_items::Library;

/// File name and text of each shipped course.
pub const BUILTIN_COURSES: &[(&str, &str)] = &[
    ("math-foundations.toml", include_str!("../courses/math-foundations.toml")),
    ("ipv4-subnetting.toml", include_str!("../courses/ipv4-subnetting.toml")),
];

/// The shipped courses, checked against `base`. They are part of the source and checked
/// by the tests, so this cannot fail at run time.
pub fn builtin_courses(base: &Library) -> Vec<Course> {
    BUILTIN_COURSES
        .iter()
        .map(|(name, text)| match Course::parse(text, PackFormat::Toml, base) {
            Ok(course) => course,
            Err(e) => panic!("shipped course {name} is invalid: {e}"),
        })
        .collect()
}

/// The source text of the shipped course `id`, as its author wrote it (comments and all).
pub fn builtin_source(id: &str) -> Option<&'static str> {
    BUILTIN_COURSES.iter().map(|(_, text)| *text).find(|text| {
        toml::from_str::<toml::Table>(text)
            .ok()
            .is_some_and(|table| table.get("course_id").and_then(toml::Value::as_str) == Some(id))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_shipped_course_is_found_by_its_id() {
        let library = Library::builtin();
        for course in builtin_courses(&library) {
            let text = builtin_source(course.id()).expect("its source");
            assert_eq!(Course::parse(text, PackFormat::Toml, &library).unwrap().id(), course.id());
        }
        assert_eq!(builtin_source("NO-SUCH-COURSE"), None);
    }

    #[test]
    fn a_pack_written_out_reads_back_as_the_same_course() {
        let library = Library::builtin();
        for course in builtin_courses(&library) {
            for format in [PackFormat::Toml, PackFormat::Json] {
                let text = course.pack().to_text(format).unwrap();
                let again = Course::parse(&text, format, &library).unwrap_or_else(|e| panic!("{format:?}: {e}"));
                assert_eq!(again.pack(), course.pack(), "{} as {format:?}", course.id());
            }
        }
    }
}
