//! A small hand-made course: IPv4 subnetting, three units about graphs, and fractions.
#![allow(dead_code)] // Each test file uses part of it.

use pathwise_course::{ChunkSpec, ChunkType, Course, CoursePack, ExamQuestionSpec, Tier, UnitSpec};

fn unit(
    id: &str,
    title: &str,
    prerequisites: &[&str],
    tags: &[&str],
    misconceptions: &[&str],
    anchor: &str,
) -> UnitSpec {
    UnitSpec {
        id: id.into(),
        title: title.into(),
        prerequisites: prerequisites.iter().map(|s| s.to_string()).collect(),
        tags: tags.iter().map(|s| s.to_string()).collect(),
        misconceptions: misconceptions.iter().map(|s| s.to_string()).collect(),
        anchor: anchor.into(),
        blueprints: vec![],
        drills: vec![],
        effort_minutes: None,
    }
}

fn chunk(unit: &str, chunk_type: ChunkType, section: Option<&str>, text: &str) -> ChunkSpec {
    ChunkSpec {
        id: None,
        unit: unit.into(),
        chunk_type,
        source_id: format!("lesson-{unit}"),
        section: section.map(str::to_string),
        text: text.into(),
    }
}

pub fn question(
    id: &str,
    units: &[&str],
    tier: Tier,
    tags: &[&str],
    stem: &str,
    memo: &str,
    video: Option<&str>,
) -> ExamQuestionSpec {
    ExamQuestionSpec {
        id: id.into(),
        units: units.iter().map(|s| s.to_string()).collect(),
        tier,
        tags: tags.iter().map(|s| s.to_string()).collect(),
        stem: stem.into(),
        options: vec!["A".into(), "B".into(), "C".into(), "D".into()],
        correct: 2,
        memo: memo.into(),
        video: video.map(|_| format!("https://videos.example.org/{id}")),
        video_transcript: video.map(str::to_string),
        passage: None,
    }
}

pub fn pack() -> CoursePack {
    use ChunkType::{Document, Transcript};
    CoursePack {
        course_id: "MIXED-01".into(),
        title: "Subnets, graphs and fractions".into(),
        description: None,
        entry_unit: "IP-ADDR".into(),
        confusion_tags: vec!["off_by_one".into()],
        units: vec![
            unit("IP-ADDR", "IPv4 addresses", &[], &["ipv4", "dotted_decimal"], &[],
                "An IPv4 address is 32 bits written as four octets in dotted decimal notation, each octet from 0 to 255."),
            unit("MASK", "Subnet masks and CIDR prefixes", &["IP-ADDR"], &["subnet_mask", "cidr"],
                &["Counting the prefix bits from the right instead of the left"],
                "A subnet mask marks which bits of an address belong to the network; the prefix length /n counts those bits, so /26 leaves 6 host bits."),
            unit("NET", "Network address", &["MASK"], &["network_address"], &[],
                "The network address of a subnet has all host bits set to 0; find it by ANDing an address with its mask."),
            unit("BCAST", "Broadcast address", &["MASK"], &["broadcast_address"],
                &["Taking the next network's address as the broadcast address"],
                "The broadcast address of a subnet has all host bits set to 1: it is the last address of the block, for example the 64th address of a /26 block."),
            unit("LINE-GRAPH", "Line graphs", &[], &["graphs"], &[],
                "A line graph joins data points to show how a quantity changes over time."),
            unit("BAR-GRAPH", "Bar graphs", &[], &["graphs"], &[],
                "A bar graph compares categories with bars whose heights show their values."),
            unit("PLOT", "Plotting points on coordinate graphs", &[], &["graphs", "coordinates"], &[],
                "Points are plotted from an ordered pair (x, y) on the coordinate plane of a graph."),
            unit("FRAC", "Fractions", &[], &["fractions"], &["Adding denominators when adding fractions"],
                "A fraction names equal parts of a whole: the numerator counts the parts taken, the denominator the parts in the whole."),
        ],
        content: vec![
            chunk("MASK", Transcript, None, "Write the mask in binary: a /26 mask is 255.255.255.192, twenty-six ones then six zeros."),
            chunk("BCAST", Document, Some("Finding the broadcast address"), "Set every host bit to one. For 192.168.1.70/26 the block is 64 addresses, so the broadcast address is 192.168.1.127."),
            chunk("BCAST", Transcript, None, "Remember the broadcast address is never given to a host."),
            chunk("NET", Document, Some("Finding the network address"), "AND the address with the mask: 192.168.1.70/26 gives 192.168.1.64."),
            chunk("FRAC", Document, Some("Adding fractions"), "To add fractions, find a common denominator first."),
            chunk("LINE-GRAPH", Transcript, None, "Read the value at each point of the line, then compare."),
        ],
        exam_questions: vec![
            question("Q-B1", &["BCAST"], Tier::Bronze, &["broadcast_address"], "What is the broadcast address of 10.0.0.0/26?", "All six host bits set: 10.0.0.63.", Some("We set the host bits to one and read 10.0.0.63.")),
            question("Q-B2", &["BCAST", "MASK"], Tier::Bronze, &["broadcast_address", "cidr"], "Which mask has broadcast 10.0.0.127 for 10.0.0.0?", "A /25 mask: 255.255.255.128.", None),
            question("Q-B3", &["BCAST"], Tier::Silver, &["broadcast_address"], "Find the broadcast address of 172.16.5.9/20.", "The block is 16 in the third octet: 172.16.15.255.", None),
            question("Q-B4", &["BCAST"], Tier::Bronze, &[], "How many hosts fit below the broadcast address of a /30?", "Two hosts.", None),
            question("Q-N1", &["NET"], Tier::Bronze, &["network_address"], "What is the network address of 10.0.0.77/26?", "AND with the mask: 10.0.0.64.", None),
            question("Q-F1", &["FRAC"], Tier::Bronze, &["fractions"], "What is 1/2 + 1/3?", "Common denominator 6: 5/6.", Some("Six is the common denominator, so five sixths.")),
        ],
        skills: vec![],
    }
}

pub fn course() -> Course {
    Course::from_pack(pack(), &pathwise_items::Library::new()).expect("the test course is valid")
}

pub fn units(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| s.to_string()).collect()
}
