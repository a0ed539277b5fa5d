pub mod analytics;
pub mod curriculum;
pub mod docs;
pub mod flows;
pub mod learners;
pub mod maps;
pub mod mastery;
pub mod nodes;
