//! The gate's decision as a CI service reads it (`git ucg gate --format github|junit`): GitHub
//! Actions workflow commands, and a JUnit XML report. Pure functions of the decision; the text of
//! an artifact (a decision, its evidence) is escaped for each reader, control characters included,
//! so that a committed artifact can neither forge a workflow command nor break the XML.

use super::visible;
use ucg_ultracode::gate::Decision;
use ucg_ultracode::pending::PendingItem;

/// What a blocker that is not a pending item (an artifact that cannot be read) is called, as the
/// kind of a GitHub annotation and the type of a JUnit failure.
const UNREADABLE: &str = "unreadable";

/// One `::error` workflow command per blocker, `file` the artifact (relative to the repository's
/// root), `title` the kind and the short id, the message the decision needed. Nothing when the
/// gate is open: an annotation on every green run would only be noise on the checks page.
pub(crate) fn github(decision: &Decision) -> String {
    let mut out = String::new();
    let mut annotate = |file: &str, title: &str, message: &str| {
        let (file, title) = (github_escaped(file, true), github_escaped(title, true));
        let message = github_escaped(message, false);
        out.push_str(&format!("::error file={file},title={title}::{message}\n"));
    };
    for item in &decision.blocking {
        let title = format!("{} {}", item.kind, item.handle());
        annotate(&item.artifact, &title, &item.decision_needed);
    }
    for b in &decision.blockers {
        // An unreadable artifact's title names its file; its message says what is wrong, then
        // the way out.
        let title = format!("{UNREADABLE} {}", super::file_name(&b.artifact));
        annotate(&b.artifact, &title, &format!("{}; {}", b.reason, b.way_out));
    }
    out
}

/// GitHub's escaping of a workflow command: in the message `%`, CR and LF as `%25`, `%0D`, `%0A`;
/// in a property (`property`) also `:` and `,` as `%3A`, `%2C`. Any other control character but
/// the tab is written visibly (`\xNN`): an artifact must not drive the log's terminal emulation.
fn github_escaped(text: &str, property: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c if visible::is_hostile(c) => visible::push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out
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
    out.push_str(&format!(
        "    <properties>\n      <property name=\"read_from\" value=\"{}\"/>\n    </properties>\n",
        xml(read_from, true)
    ));
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
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  \
<testsuite name=\"git-ucg gate\" tests=\"1\" failures=\"0\" errors=\"1\">\n    \
<testcase classname=\"git-ucg.gate\" name=\"judge\">\n      \
<error message=\"{}\" type=\"cannot-judge\">{}</error>\n    </testcase>\n  </testsuite>\n</testsuites>\n",
        xml(why, true),
        xml(why, false)
    )
}

/// The `::error` line when the gate cannot judge.
pub(crate) fn github_cannot_judge(why: &str) -> String {
    format!(
        "::error title=git-ucg gate cannot judge::{}\n",
        github_escaped(why, false)
    )
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
    let [classname, name, message, kind] = [classname, name, message, kind].map(|a| xml(a, true));
    out.push_str(&format!(
        "    <testcase classname=\"{classname}\" name=\"{name}\">\n      \
<failure message=\"{message}\" type=\"{kind}\">{}</failure>\n    </testcase>\n",
        xml(details, false)
    ));
}

/// XML 1.0's escaping: the five markup characters as entities (so `]]>` cannot occur either); in
/// an attribute (`attribute`) the tab, newline and carriage return as character references, so
/// that a parser's normalisation does not turn them into spaces; a carriage return in text too
/// (a parser would read it as a newline). The characters XML 1.0 cannot carry at all — every C0
/// control but those three, U+FFFE, U+FFFF — and the C1 controls are written visibly (`\xNN`,
/// `\u{fffe}`), as a terminal would show them.
fn xml(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
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
            '\u{fffe}' | '\u{ffff}' => visible::push_escaped(&mut out, c),
            c if visible::is_hostile(c) => visible::push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escapes_markup_and_what_xml_cannot_carry() {
        assert_eq!(
            xml("a<b>&\"c\"'d' ]]> \t\n\r\x01\x1b\u{85}\u{fffe}é", false),
            "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos; ]]&gt; \t\n&#13;\\x01\\x1b\\x85\\u{fffe}é"
        );
        assert_eq!(xml("\t\n\r", true), "&#9;&#10;&#13;");
    }

    #[test]
    fn github_escapes_data_and_properties() {
        assert_eq!(
            github_escaped("100% a:b,c\r\n::x\x1b[2J", false),
            "100%25 a:b,c%0D%0A::x\\x1b[2J"
        );
        assert_eq!(
            github_escaped("100% a:b,c\r\n", true),
            "100%25 a%3Ab%2Cc%0D%0A"
        );
    }
}
