-- What the operator's learner list and a learner's deletion look up by learner, or by a
-- parent row the deletion cascades from: without these, each lookup reads a whole table
-- (a deleted learner's every node, a scan of the jobs and of the course units).
CREATE INDEX idx_tutor_turns_learner ON tutor_turns (learner_id, created_at);
CREATE INDEX idx_jobs_learner ON jobs (learner_id);
CREATE INDEX idx_jobs_node ON jobs (node_id);
CREATE INDEX idx_course_unit_nodes_node ON course_unit_nodes (node_id);
CREATE INDEX idx_drill_offers_learner ON drill_offers (learner_id);
CREATE INDEX idx_tutor_snapshots_map ON tutor_snapshots (mind_map_id);
