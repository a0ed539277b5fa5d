pub mod curriculum;
pub mod docs;
pub mod learners;
pub mod maps;
pub mod mastery;
pub mod nodes;
