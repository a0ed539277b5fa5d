//! The Material view in the browser (tests/e2e/material.mjs): a learner's notes (Markdown)
//! and a book (a two-chapter PDF written here) uploaded with their progress, a blank file
//! refused by name; a course drafted from them, reviewed (renamed, a unit left without
//! material and its problem shown, the unit deleted and the next one re-linked), its units'
//! questions and drills drafted (a key its passage lacks shown as a problem; the unit whose
//! notes work a subnet's first host given the blueprint that computes such drills), published,
//! taught (the concept card citing its passage), and a cited passage opened. No model is
//! configured: none of it needs one.

use super::{ready, run_script, serve_with};
use pathwise_ingest::sample::{self, SamplePage, SampleParagraph};

const NOTES: &str = "# Subnetting\n\nAn IPv4 address has a network part and a host part.\n\n## Masks\n\n\
A mask marks the network bits: a /24 keeps 24 of them.\n\n### Prefixes\n\nThe mask 255.255.255.0 is the same as /24.\n\n\
## Hosts\n\nA /24 has 254 usable host addresses.\n\n\
## Gateways\n\nA gateway forwards packets to other networks. On the subnet 192.168.1.0/24 the gateway \
is often the first usable host.\n";

#[tokio::test(flavor = "multi_thread")]
async fn material_is_uploaded_drafted_reviewed_and_published_in_the_browser() {
    if !ready() {
        return;
    }
    let served = serve_with(None, &[]);
    let files = served.dir.path().join("files");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("subnets.md"), NOTES).unwrap();
    let page = |heading: &str, body: &str| {
        SamplePage::new(vec![SampleParagraph::heading(sample::CHAPTER_FONT_SIZE, heading), SampleParagraph::body(body)])
    };
    let book = sample::pdf(&[
        page("Routing", "A router forwards packets between networks using its routing table."),
        page("Tables", "A routing table maps destination prefixes to next hops."),
    ]);
    std::fs::write(files.join("routing.pdf"), book).unwrap();
    std::fs::write(files.join("blank.md"), "   \n\n").unwrap();
    let paths = ["subnets.md", "routing.pdf", "blank.md"].map(|name| files.join(name).display().to_string());

    let report = run_script("material.mjs", &served, [("FILES", paths.join("\n"))]).await;
    assert_eq!(report["uploads"]["blank.md"]["ok"], false, "{report}");
    assert!(report["uploads"]["blank.md"]["note"].as_str().unwrap().contains("blank.md"), "{report}");
    for name in ["subnets.md", "routing.pdf"] {
        assert_eq!(report["uploads"][name]["ok"], true, "{name}: {report}");
        assert_eq!(report["uploads"][name]["progress"], 1.0, "{name}: {report}");
    }
    assert_eq!(report["published"]["id"], "MY-NETWORK-NOTES", "{report}");
    assert_eq!(report["published"]["units"], report["units_after_review"], "{report}");
    assert!(report["questions"].as_u64() >= Some(3) && report["drills"].as_u64() >= Some(3), "{report}");
    assert_eq!(report["cited"], "routing.pdf, p. 1, Routing", "{report}");
    assert!(report["reordered"].as_str().unwrap().starts_with("The mask 255.255.255.0"), "{report}");
    assert_eq!(report["computed"], "Find the first usable host address of a subnet", "{report}");
    assert!(report["computed_sample"].as_str().unwrap().starts_with("For example: "), "{report}");
}
