//! Every row that belongs to one learner, table by table, in a form both stores read and
//! write alike: what a learner's export holds and what an import writes back.
//!
//! The tables and their columns are declared once here ([`LEARNER_TABLES`]); the exporter,
//! the importer and the checks of an imported document all follow the declaration, and the
//! store's tests hold it to the live schema of both databases, so that a migration that
//! adds a table or a column a learner's rows live in cannot be left out of exports.

mod document;
mod tables;
mod value;

pub use document::{LearnerRows, RowsError, TableRows};
pub use tables::*;
pub use value::{Row, Value};

#[cfg(test)]
mod tests {
    use super::tables::Kind::*;
    use super::tables::*;
    use super::*;
    use chrono::{DateTime, NaiveDate, Utc};
    use pathwise_domain::LearnerId;
    use serde_json::json;
    use serde_json::{Map, Value as Json};
    use uuid::Uuid;

    fn learner() -> crate::Learner {
        crate::Learner {
            id: LearnerId(Uuid::from_u128(7)),
            name: "Ada".into(),
            is_local: false,
            created_at: DateTime::parse_from_rfc3339("2026-03-02T09:00:00Z").unwrap().with_timezone(&Utc),
        }
    }

    fn empty_tables() -> Map<String, Json> {
        LEARNER_TABLES.iter().map(|t| (t.name.to_string(), json!([]))).collect()
    }

    #[test]
    fn every_kind_reads_back_what_it_writes() {
        let values = [
            (col("a", Id), Value::Id(Uuid::from_u128(9))),
            (col("a", Time), Value::Time(learner().created_at + chrono::Duration::microseconds(17))),
            (col("a", Text), Value::Text("x".into())),
            (col("a", Int), Value::Int(-3)),
            (col("a", BigInt), Value::Int(1 << 40)),
            (col("a", Float), Value::Float(0.1 + 0.2)),
            (col("a", Bool), Value::Bool(true)),
            (col("a", Json), Value::Json(json!({ "k": [1, 2.5, null] }))),
            (col("a", Bytes), Value::Bytes(vec![0, 255, 16])),
            (col("a", Date), Value::Date(NaiveDate::from_ymd_opt(2026, 3, 2).unwrap())),
            (col("a", Qualities), Value::Qualities(vec![5, 0, 3])),
            (opt("a", Time), Value::Null),
        ];
        for (column, value) in values {
            assert_eq!(Value::from_json(&column, &value.to_json()), Ok(value));
        }
    }

    #[test]
    fn a_value_of_the_wrong_kind_is_refused_with_what_is_allowed() {
        assert_eq!(
            Value::from_json(&col("a", Int), &json!(1u64 << 40)).unwrap_err(),
            "expected a whole number that fits in 32 bits"
        );
        assert_eq!(Value::from_json(&col("a", Id), &json!("nope")).unwrap_err(), "expected a UUID");
        assert_eq!(Value::from_json(&col("a", Text), &Json::Null).unwrap_err(), "must not be null; expected a string");
        assert!(Value::from_json(&col("a", Qualities), &json!([6])).is_err());
    }

    #[test]
    fn a_document_names_every_table_and_only_known_ones() {
        assert!(LearnerRows::from_json(learner(), &empty_tables()).is_ok());
        let mut missing = empty_tables();
        missing.remove("sessions");
        assert_eq!(LearnerRows::from_json(learner(), &missing).unwrap_err().field, "tables.sessions");
        // A document from before a table existed does not list it, and has none of its rows.
        let mut older = empty_tables();
        for table in TABLES_ADDED_SINCE_VERSION_1 {
            older.remove(*table);
        }
        assert!(LearnerRows::from_json(learner(), &older).is_ok());
        let mut unknown = empty_tables();
        unknown.insert("secrets".into(), json!([]));
        let error = LearnerRows::from_json(learner(), &unknown).unwrap_err();
        assert_eq!(error.field, "tables.secrets");
        assert!(error.message.contains("mind_maps"), "{}", error.message);
    }

    #[test]
    fn a_row_must_have_exactly_its_columns() {
        let row = json!({ "learner_id": learner().id, "day": "2026-03-02" });
        let mut tables = empty_tables();
        tables.insert("study_days".into(), json!([row]));
        assert!(LearnerRows::from_json(learner(), &tables).is_ok());
        tables.insert("study_days".into(), json!([{ "learner_id": learner().id }]));
        assert_eq!(LearnerRows::from_json(learner(), &tables).unwrap_err().field, "tables.study_days[0].day");
        tables.insert("study_days".into(), json!([{ "learner_id": learner().id, "day": "2026-03-02", "x": 1 }]));
        assert_eq!(LearnerRows::from_json(learner(), &tables).unwrap_err().field, "tables.study_days[0].x");
    }

    #[test]
    fn rows_of_another_learner_or_pointing_outside_the_document_are_refused() {
        let mut tables = empty_tables();
        tables.insert("study_days".into(), json!([{ "learner_id": Uuid::from_u128(8), "day": "2026-03-02" }]));
        let error = LearnerRows::from_json(learner(), &tables).unwrap_err();
        assert_eq!(error.field, "tables.study_days[0].learner_id");
        let mut tables = empty_tables();
        tables.insert(
            "node_fsrs".into(),
            json!([{ "node_id": Uuid::from_u128(99), "stability": 1.0, "difficulty": 5.0,
                     "updated_at": "2026-03-02T09:00:00Z" }]),
        );
        let error = LearnerRows::from_json(learner(), &tables).unwrap_err();
        assert_eq!(error.field, "tables.node_fsrs[0].node_id");
        assert!(error.message.contains("mind_map_nodes"), "{}", error.message);
    }

    #[test]
    fn what_a_learner_made_must_be_their_own_and_of_known_words() {
        let draft = |owner: Uuid, stage: &str| {
            json!([{ "id": Uuid::from_u128(1), "owner_id": owner, "title": "Sets", "stage": stage, "version": 0,
                     "created_at": "2026-03-02T09:00:00Z", "updated_at": "2026-03-02T09:00:00Z", "draft": {} }])
        };
        let mut tables = empty_tables();
        tables.insert("course_drafts".into(), draft(learner().id.0, "outline"));
        assert!(LearnerRows::from_json(learner(), &tables).is_ok());
        tables.insert("course_drafts".into(), draft(Uuid::from_u128(8), "outline"));
        assert_eq!(LearnerRows::from_json(learner(), &tables).unwrap_err().field, "tables.course_drafts[0].owner_id");
        tables.insert("course_drafts".into(), draft(learner().id.0, "published"));
        let error = LearnerRows::from_json(learner(), &tables).unwrap_err();
        assert_eq!(error.field, "tables.course_drafts[0].stage");
        assert!(error.message.contains("outline, units"), "{}", error.message);
    }

    #[test]
    fn every_declared_key_is_a_column_of_its_table() {
        for table in LEARNER_TABLES {
            for key in table.key {
                assert!(table.column(key).is_some(), "{}.{key}", table.name);
            }
            assert!(table.sequenced || !table.key.is_empty(), "{} has neither key nor sequence", table.name);
            for column in table.columns {
                if let Some(target) = column.refers_to {
                    let target = learner_table(target).expect("a learner table");
                    let earlier = LEARNER_TABLES.iter().position(|t| t.name == target.name)
                        <= LEARNER_TABLES.iter().position(|t| t.name == table.name);
                    // mind_maps.root_node_id has no foreign key, so its nodes may come after.
                    assert!(
                        earlier || column.name == "root_node_id",
                        "{}.{} before its table",
                        table.name,
                        column.name
                    );
                }
            }
        }
    }
}
