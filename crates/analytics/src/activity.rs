//! When a learner studied: time windows, sessions, parts of the day and streaks.

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, Timelike, Utc};
use pathwise_domain::model::ResponseEvent;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashSet};
use utoipa::ToSchema;

/// Responses without a session id more than this far apart belong to different sessions.
pub const SESSION_GAP_MINUTES: i64 = 30;

/// Whether `at` lies in the `days` days that end at `now`: strictly after `now - days`
/// and no later than `now`. A response exactly `days` days old is outside, so that a
/// response counts in exactly one of two back-to-back windows; one recorded after `now`
/// (loaded after the job read the clock) waits for the next run.
pub fn within_days(at: DateTime<Utc>, now: DateTime<Utc>, days: i64) -> bool {
    at > now - Duration::days(days) && at <= now
}

/// A UTC instant as wall-clock time at `utc_offset_minutes` east of UTC.
pub fn local_time(at: DateTime<Utc>, utc_offset_minutes: i32) -> NaiveDateTime {
    at.naive_utc() + Duration::minutes(i64::from(utc_offset_minutes))
}

/// How many study sessions the responses make up. Responses carrying a `session_id`
/// count once per distinct id. Responses without one are ordered by time and split into
/// sessions wherever two consecutive ones are more than [`SESSION_GAP_MINUTES`] apart
/// (exactly 30 minutes still continues the session); they never join an identified
/// session, even one running at the same time.
pub fn count_sessions<'a>(responses: impl IntoIterator<Item = &'a ResponseEvent>) -> usize {
    let mut identified = HashSet::new();
    let mut loose = Vec::new();
    for response in responses {
        match response.session_id {
            Some(id) => {
                identified.insert(id);
            }
            None => loose.push(response.responded_at),
        }
    }
    loose.sort_unstable();
    let gap = Duration::minutes(SESSION_GAP_MINUTES);
    let loose_sessions =
        loose.windows(2).filter(|pair| pair[1] - pair[0] > gap).count() + usize::from(!loose.is_empty());
    identified.len() + loose_sessions
}

/// A part of the local day, by the hour: morning 05-12, afternoon 12-17, evening 17-22,
/// night 22-05 (each includes its first hour and excludes its last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DayPart {
    Morning,
    Afternoon,
    Evening,
    Night,
}

impl DayPart {
    pub fn of_hour(hour: u32) -> DayPart {
        match hour {
            5..=11 => DayPart::Morning,
            12..=16 => DayPart::Afternoon,
            17..=21 => DayPart::Evening,
            _ => DayPart::Night,
        }
    }

    /// The part of the day `at` falls in, on the clock `utc_offset_minutes` east of UTC.
    pub fn at(at: DateTime<Utc>, utc_offset_minutes: i32) -> DayPart {
        DayPart::of_hour(local_time(at, utc_offset_minutes).hour())
    }
}

/// How many responses fell in each part of the local day (see [`DayPart`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(default)]
pub struct TimeOfDayDistribution {
    pub morning: u32,
    pub afternoon: u32,
    pub evening: u32,
    pub night: u32,
}

impl TimeOfDayDistribution {
    /// Count each instant in its part of the day at `utc_offset_minutes` east of UTC.
    pub fn of(times: impl IntoIterator<Item = DateTime<Utc>>, utc_offset_minutes: i32) -> Self {
        let mut distribution = TimeOfDayDistribution::default();
        for at in times {
            let slot = match DayPart::at(at, utc_offset_minutes) {
                DayPart::Morning => &mut distribution.morning,
                DayPart::Afternoon => &mut distribution.afternoon,
                DayPart::Evening => &mut distribution.evening,
                DayPart::Night => &mut distribution.night,
            };
            *slot += 1;
        }
        distribution
    }

    pub fn total(&self) -> u32 {
        self.morning + self.afternoon + self.evening + self.night
    }
}

/// The current study streak: how many consecutive local calendar days (at
/// `utc_offset_minutes` east of UTC) had at least one response, counting back from today,
/// or from yesterday when there has been none yet today (a streak is not broken before
/// the day is over). 0 when neither today nor yesterday saw a response. Only the
/// instants given count, so a streak can be no longer than the history passed.
pub fn current_streak_days(
    response_times: impl IntoIterator<Item = DateTime<Utc>>,
    now: DateTime<Utc>,
    utc_offset_minutes: i32,
) -> u32 {
    let days: BTreeSet<NaiveDate> = response_times
        .into_iter()
        .filter(|&at| at <= now)
        .map(|at| local_time(at, utc_offset_minutes).date())
        .collect();
    streak_through(&days, local_time(now, utc_offset_minutes).date())
}

/// The study streak on `today` from the days that had at least one response: consecutive
/// days counting back from today, or from yesterday when today has none yet, as in
/// [`current_streak_days`]. Days after `today` are ignored.
pub fn streak_through(days: &BTreeSet<NaiveDate>, today: NaiveDate) -> u32 {
    let mut day = if days.contains(&today) { today } else { today - Duration::days(1) };
    let mut streak = 0;
    while days.contains(&day) {
        streak += 1;
        day -= Duration::days(1);
    }
    streak
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::*;
    use pathwise_domain::ResponseType;

    #[test]
    fn a_response_exactly_seven_days_old_is_outside_the_window() {
        let now = at("2026-03-08T03:00:00Z");
        assert!(!within_days(now - Duration::days(7), now, 7));
        assert!(within_days(now - Duration::days(7) + Duration::seconds(1), now, 7));
        assert!(within_days(now, now, 7));
        assert!(!within_days(now + Duration::seconds(1), now, 7), "responses after now wait for the next run");
    }

    #[test]
    fn sessions_count_distinct_ids_and_split_anonymous_responses_on_gaps_over_thirty_minutes() {
        let node = node_id(1);
        let t0 = at("2026-03-07T09:00:00Z");
        let with_session = |minutes: i64, session: u128| {
            let mut r = response(node, 4, ResponseType::Review, t0 + Duration::minutes(minutes));
            r.session_id = Some(uuid::Uuid::from_u128(session));
            r
        };
        let anonymous = |minutes: i64| response(node, 4, ResponseType::Review, t0 + Duration::minutes(minutes));
        let responses = vec![
            with_session(0, 100),
            with_session(5, 100),
            with_session(300, 200),
            // 0, 30 (exactly 30 later: same session), 61 (31 later: new session), 62.
            anonymous(30),
            anonymous(0),
            anonymous(61),
            anonymous(62),
        ];
        assert_eq!(count_sessions(&responses), 2 + 2);
        assert_eq!(count_sessions(&responses[..0]), 0);
        assert_eq!(count_sessions(&responses[3..4]), 1);
    }

    #[test]
    fn day_parts_follow_the_hour_boundaries() {
        let parts: Vec<DayPart> = [4, 5, 11, 12, 16, 17, 21, 22, 23, 0].iter().map(|&h| DayPart::of_hour(h)).collect();
        use DayPart::*;
        assert_eq!(parts, vec![Night, Morning, Morning, Afternoon, Afternoon, Evening, Evening, Night, Night, Night]);
    }

    #[test]
    fn time_of_day_uses_the_learners_offset() {
        // 10:30 UTC is morning in London, 19:30 in Tokyo (+9:00), 04:30 in Chicago (-6:00).
        let instant = at("2026-03-07T10:30:00Z");
        assert_eq!(DayPart::at(instant, 0), DayPart::Morning);
        assert_eq!(DayPart::at(instant, 9 * 60), DayPart::Evening);
        assert_eq!(DayPart::at(instant, -6 * 60), DayPart::Night);
        // India's half-hour offset moves 06:45 UTC to 12:15 local.
        assert_eq!(DayPart::at(at("2026-03-07T06:45:00Z"), 330), DayPart::Afternoon);
        let d = TimeOfDayDistribution::of([instant, at("2026-03-07T13:00:00Z"), at("2026-03-07T23:30:00Z")], 0);
        assert_eq!(d, TimeOfDayDistribution { morning: 1, afternoon: 1, evening: 0, night: 1 });
        assert_eq!(d.total(), 3);
    }

    #[test]
    fn streak_counts_consecutive_local_days_up_to_today_or_yesterday() {
        let now = at("2026-03-08T20:00:00Z");
        let days = ["2026-03-05T12:00:00Z", "2026-03-06T12:00:00Z", "2026-03-07T12:00:00Z"].map(at);
        assert_eq!(current_streak_days(days, now, 0), 3, "nothing yet today keeps yesterday's streak");
        let with_today = days.into_iter().chain([at("2026-03-08T08:00:00Z")]);
        assert_eq!(current_streak_days(with_today, now, 0), 4);
        assert_eq!(current_streak_days([at("2026-03-05T12:00:00Z")], now, 0), 0);
        // 23:30 UTC on the 7th is already the 8th at +01:00, and now (20:00 UTC) is the 8th there too.
        assert_eq!(current_streak_days([at("2026-03-07T23:30:00Z")], now, 60), 1);
        assert_eq!(current_streak_days(Vec::new(), now, 0), 0);
    }

    #[test]
    fn a_streak_from_study_days_matches_the_one_from_response_times() {
        let days: BTreeSet<NaiveDate> = ["2026-03-05", "2026-03-06", "2026-03-07", "2026-03-09"].map(date).into();
        assert_eq!(streak_through(&days, date("2026-03-08")), 3, "the 9th is after today");
        assert_eq!(streak_through(&days, date("2026-03-09")), 1);
        assert_eq!(streak_through(&days, date("2026-03-10")), 1, "yesterday's streak stands until today ends");
        assert_eq!(streak_through(&days, date("2026-03-11")), 0);
        let times = days.iter().map(|d| d.and_hms_opt(12, 0, 0).unwrap().and_utc());
        assert_eq!(current_streak_days(times, at("2026-03-08T20:00:00Z"), 0), 3);
    }

    proptest::proptest! {
        #[test]
        fn every_response_lands_in_exactly_one_part_of_the_day(
            seconds in proptest::collection::vec(0i64..(60 * 86_400), 0..50),
            offset in -(14 * 60)..(14 * 60),
        ) {
            let base = at("2026-01-01T00:00:00Z");
            let times: Vec<_> = seconds.iter().map(|&s| base + Duration::seconds(s)).collect();
            let distribution = TimeOfDayDistribution::of(times.iter().copied(), offset);
            proptest::prop_assert_eq!(distribution.total() as usize, times.len());
        }

        #[test]
        fn anonymous_sessions_are_between_one_and_the_number_of_responses(
            minutes in proptest::collection::vec(0i64..10_000, 1..40),
        ) {
            let base = at("2026-01-01T00:00:00Z");
            let responses: Vec<_> = minutes
                .iter()
                .map(|&m| response(node_id(1), 3, ResponseType::Teach, base + Duration::minutes(m)))
                .collect();
            let sessions = count_sessions(&responses);
            proptest::prop_assert!(sessions >= 1 && sessions <= responses.len());
        }
    }
}
