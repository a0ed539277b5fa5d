pub mod curriculum;
pub mod docs;
pub mod learners;
pub mod mastery;
pub mod maps;
pub mod nodes;
