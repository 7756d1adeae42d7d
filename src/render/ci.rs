//! The gate's decision as a CI service reads it (`git ucg gate --format github|junit`): GitHub
//! Actions workflow commands, and a JUnit XML report. Pure functions of the decision; the text of
//! an artifact (a decision, its evidence) is escaped for each reader, control characters included,
//! so that a committed artifact can neither forge a workflow command nor break the XML.

use super::visible;
use ucg_ultracode::gate::Decision;
use ucg_ultracode::pending::{Blocker, PendingItem};

/// What a blocker that is not a pending item (an artifact that cannot be read) is called, as the
/// kind of a GitHub annotation and the type of a JUnit failure.
const UNREADABLE: &str = "unreadable";

/// An unreadable artifact's short name: its file name.
fn file_name(artifact: &str) -> &str {
    artifact.rsplit('/').next().unwrap_or(artifact)
}

/// An unreadable artifact's message: what is wrong, then the way out.
fn unreadable_message(blocker: &Blocker) -> String {
    format!("{}; {}", blocker.reason, blocker.way_out)
}

/// One `::error` workflow command per blocker, `file` the artifact (relative to the repository's
/// root), `title` the kind and the short id, the message the decision needed. Nothing when the
/// gate is open: an annotation on every green run would only be noise on the checks page.
pub(crate) fn github(decision: &Decision) -> String {
    let mut out = String::new();
    let mut annotate = |file: &str, title: &str, message: &str| {
        out.push_str("::error file=");
        github_escape(&mut out, file, true);
        out.push_str(",title=");
        github_escape(&mut out, title, true);
        out.push_str("::");
        github_escape(&mut out, message, false);
        out.push('\n');
    };
    for item in &decision.blocking {
        let title = format!("{} {}", item.kind, item.handle());
        annotate(&item.artifact, &title, &item.decision_needed);
    }
    for blocker in &decision.blockers {
        let title = format!("{UNREADABLE} {}", file_name(&blocker.artifact));
        annotate(&blocker.artifact, &title, &unreadable_message(blocker));
    }
    out
}

/// GitHub's escaping of a workflow command: in the message `%`, CR and LF as `%25`, `%0D`, `%0A`;
/// in a property (`property`) also `:` and `,` as `%3A`, `%2C`. Any other control character but
/// the tab is written visibly (`\xNN`): an artifact must not drive the log's terminal emulation.
fn github_escape(out: &mut String, text: &str, property: bool) {
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c if visible::is_hostile(c) => visible::push_escaped(out, c),
            c => out.push(c),
        }
    }
}

/// The JUnit XML report: one test suite, `git-ucg gate`, with one failing test case per blocker
/// (class `git-ucg.gate.<source>`, named by the item's id, its failure's message the decision and
/// its type the kind), or one passing case, `nothing pending`, so that CI shows the gate ran.
/// `read_from` (the work tree, or the commit) is the suite's one property.
pub(crate) fn junit(decision: &Decision, read_from: &str) -> String {
    let cases = decision.blocking.len() + decision.blockers.len();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    out.push_str(&format!(
        "  <testsuite name=\"git-ucg gate\" tests=\"{}\" failures=\"{cases}\">\n",
        cases.max(1)
    ));
    out.push_str("    <properties>\n      <property name=\"read_from\" value=\"");
    xml_escape(&mut out, read_from, true);
    out.push_str("\"/>\n    </properties>\n");
    for item in &decision.blocking {
        failing_case(
            &mut out,
            &format!("git-ucg.gate.{}", item.source.name()),
            &item.id,
            &item.decision_needed,
            &item.kind,
            &item_details(item),
        );
    }
    for blocker in &decision.blockers {
        failing_case(
            &mut out,
            &format!("git-ucg.gate.{UNREADABLE}"),
            &blocker.artifact,
            &blocker.reason,
            UNREADABLE,
            &format!("artifact: {}\n{}\n", blocker.artifact, blocker.way_out),
        );
    }
    if cases == 0 {
        out.push_str("    <testcase classname=\"git-ucg.gate\" name=\"nothing pending\"/>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// The JUnit report when the gate cannot judge (a revision that names no commit, a tree that
/// cannot be read, a configuration that cannot be resolved): one test case in error, so that a CI
/// report step finds a document and shows why.
pub(crate) fn junit_cannot_judge(why: &str) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    out.push_str("  <testsuite name=\"git-ucg gate\" tests=\"1\" failures=\"0\" errors=\"1\">\n");
    out.push_str(
        "    <testcase classname=\"git-ucg.gate\" name=\"judge\">\n      <error message=\"",
    );
    xml_escape(&mut out, why, true);
    out.push_str("\" type=\"cannot-judge\">");
    xml_escape(&mut out, why, false);
    out.push_str("</error>\n    </testcase>\n  </testsuite>\n</testsuites>\n");
    out
}

/// The `::error` line when the gate cannot judge.
pub(crate) fn github_cannot_judge(why: &str) -> String {
    let mut out = String::from("::error title=git-ucg gate cannot judge::");
    github_escape(&mut out, why, false);
    out.push('\n');
    out
}

/// A failure's text: where the item is, what it rests on, any answer on record, how to answer.
fn item_details(item: &PendingItem) -> String {
    let mut text = format!("artifact: {}\n", item.artifact);
    if !item.evidence.is_empty() {
        text.push_str(&format!("evidence: {}\n", item.evidence));
    }
    if let (Some(action), Some(answer)) = (&item.action, &item.answer) {
        text.push_str(&format!("on record: {action}: {answer}\n"));
    }
    text.push_str(&format!(
        "answer: git ucg resolve --close {} --answer TEXT\n",
        item.handle()
    ));
    text
}

fn failing_case(
    out: &mut String,
    classname: &str,
    name: &str,
    message: &str,
    kind: &str,
    details: &str,
) {
    out.push_str("    <testcase classname=\"");
    xml_escape(out, classname, true);
    out.push_str("\" name=\"");
    xml_escape(out, name, true);
    out.push_str("\">\n      <failure message=\"");
    xml_escape(out, message, true);
    out.push_str("\" type=\"");
    xml_escape(out, kind, true);
    out.push_str("\">");
    xml_escape(out, details, false);
    out.push_str("</failure>\n    </testcase>\n");
}

/// XML 1.0's escaping: the five markup characters as entities (so `]]>` cannot occur either); in
/// an attribute (`attribute`) the tab, newline and carriage return as character references, so
/// that a parser's normalisation does not turn them into spaces; a carriage return in text too
/// (a parser would read it as a newline). The characters XML 1.0 cannot carry at all — every C0
/// control but those three, U+FFFE, U+FFFF — and the C1 controls are written visibly (`\xNN`,
/// `\u{fffe}`), as a terminal would show them.
fn xml_escape(out: &mut String, text: &str, attribute: bool) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\u{fffe}' | '\u{ffff}' => visible::push_escaped(out, c),
            c if visible::is_hostile(c) => visible::push_escaped(out, c),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(text: &str, attribute: bool) -> String {
        let mut out = String::new();
        xml_escape(&mut out, text, attribute);
        out
    }

    #[test]
    fn xml_escapes_markup_and_what_xml_cannot_carry() {
        assert_eq!(
            escaped("a<b>&\"c\"'d' ]]> \t\n\r\x01\x1b\u{85}\u{fffe}é", false),
            "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos; ]]&gt; \t\n&#13;\\x01\\x1b\\x85\\u{fffe}é"
        );
        assert_eq!(escaped("\t\n\r", true), "&#9;&#10;&#13;");
    }

    #[test]
    fn github_escapes_data_and_properties() {
        let mut data = String::new();
        github_escape(&mut data, "100% a:b,c\r\n::x\x1b[2J", false);
        assert_eq!(data, "100%25 a:b,c%0D%0A::x\\x1b[2J");
        let mut property = String::new();
        github_escape(&mut property, "100% a:b,c\r\n", true);
        assert_eq!(property, "100%25 a%3Ab%2Cc%0D%0A");
    }
}
