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
