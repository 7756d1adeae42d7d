# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_git_ucg_global_optspecs
    string join \n color= no-pager C= h/help V/version
end

function __fish_git_ucg_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_git_ucg_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_git_ucg_using_subcommand
    set -l cmd (__fish_git_ucg_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c git-ucg -n "__fish_git_ucg_needs_command" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_needs_command" -s C -d 'Run as if started in PATH (like `git -C`); repeatable, each relative to the previous' -r -F
complete -c git-ucg -n "__fish_git_ucg_needs_command" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "config" -d 'Show the resolved [workflow] configuration and where each value comes from'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "status" -d 'What the run is doing and waiting on: dashboard, JSON, the reference\'s markdown, a prompt segment'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "runs" -d 'The runs index: run folders, live or terminal, their epic, their last activity'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "pending" -d 'The decisions the run waits on: REDs, escalations, ledger decisions, each with its id'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "resolve" -d 'Answer what the run waits on (the guided pass), record the answers and apply them'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "resume" -d 'Where a resume re-enters the run, and what it must re-assert (read-only)'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "gate" -d 'The hook decision as a command: exit 1 and the blockers while decisions are pending'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "notify" -d 'Run a command when the pending decisions change (new items, items closed), once per change'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "hooks" -d 'Git hooks that refuse commits and pushes while decisions are pending'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "baseline" -d 'A story\'s anchors: its baseline and end markers, and the tests-ran marker\'s freshness'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "goal" -d 'The ultragoal state machine (its state CLI\'s commands, on the same files)'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "sdlc" -d 'agentic-sdlc heavy-pipeline runs under docs/superpowers/runs: list, status, catalog, repair, reconcile, resume'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "lesson" -d 'DG-Anvil\'s lesson ledger: append, query, audit, invalidate, retroactive lessons, the reset loop'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "budget" -d 'The per-story turn budget: the Claude Code Stop hook (`tick`), and its counters'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "epic" -d 'The epic: its branch, its stories in sprint order, each story\'s commit range and changes'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "diff" -d 'The accumulated diff of the epic, of one story, or of any range (through gitoxide)'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "id" -d 'Stable decision ids'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "reds" -d 'The preflight RED registry (.preflight-reds.json)'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "merge-file" -d 'The git merge driver for the answers file and the RED registry (git runs it; `hooks install --merge-driver` sets it up)'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "demo" -d 'Create a sample repository with a stopped run, and show what to try on it'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "install-docs" -d 'Install the man pages (so `git ucg --help` and `git help ucg` open them) and the shell completions for this user, from this binary'
complete -c git-ucg -n "__fish_git_ucg_needs_command" -f -a "help" -d 'The full help of a command (`git ucg help resolve`, `git ucg help hooks install`)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand config" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand config" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand config" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand config" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand config" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l format -d 'The view: `human` (the dashboard), `json` (the same as --json), or `markdown` (the reference renderer\'s document)' -r -f -a "human\t''
json\t''
markdown\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l exec -d 'With --watch: announce each change of the pending decisions to CMD, as `git ucg notify --exec CMD` does' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l run-dir -d 'The run folder whose decision log\'s tail is shown (default: the heartbeat epic\'s run)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l runs-root -d 'Where run folders live (default: <project root>/_bmad-output/ultracode-goal)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l deferred-work -d 'The deferred-work ledger (default: workflow.deferred_work_path, else deferred-work.md in the artifact directory)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l rev -d 'Read the artifacts from the tree of commit REV instead of the work tree (no checkout)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l prompt -d 'One short segment for a shell prompt, from a cache under the git directory; always exits 0'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l watch -d 'Re-render on every change to the artifacts, run folder or ledger (Ctrl-C ends); with --json, one document per line per change'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l fast -d 'Skip the per-story commit and line counts (no git history is read)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l no-cache -d 'Count lines afresh, without the line-count cache under the git directory'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l full -d 'Whole ids and artifact paths where a person reads an item (default: the short handle `resolve` takes, and the file name)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand status" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand runs" -l runs-root -d 'Where run folders live (default: <project root>/_bmad-output/ultracode-goal)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand runs" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand runs" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand runs" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand runs" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand runs" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand pending" -l for -d 'Only the items EMAIL decides (by the ucg.decider rules)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand pending" -l rev -d 'Read the artifacts from the tree of commit REV instead of the work tree (no checkout)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand pending" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand pending" -l deferred-work -d 'The deferred-work ledger (default: workflow.deferred_work_path, else deferred-work.md in the artifact directory)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand pending" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand pending" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand pending" -l full -d 'Whole ids and artifact paths where a person reads an item (default: the short handle `resolve` takes, and the file name)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand pending" -l exit-code -d 'Exit 1 when anything is pending or blocked (like `git diff --exit-code`)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand pending" -l mine -d 'Only the items you decide (your user.email, by the ucg.decider rules)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand pending" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand pending" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand pending" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l close -d 'Close the item ID; the next --answer is its answer. Repeatable' -r -f -a "(git-ucg __complete pending 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l defer -d 'Defer the item ID; the next --answer is its answer. Repeatable' -r -f -a "(git-ucg __complete pending 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l answer -d 'The one-line answer to the --close or --defer before it' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l answers -d 'Answers as JSON, {"answers": [{"id", "answer", "action"}]}, from FILE or - (standard input)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l run -d 'The run folder (under the runs root) whose decision log gets the pass\'s section' -r -f -a "(git-ucg __complete runs 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l branch -d 'Answer on BRANCH\'s committed artifacts and commit the answers there, without a checkout: the work tree, the index and HEAD are not touched. With nothing given on a terminal (or --interactive, --mine), the guided pass asks the branch\'s own items first; the answers make one commit' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l push -d 'With --branch: push BRANCH to REMOTE afterwards (a rejected push is retried once, the answers applied again on the fetched tip)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l message -d 'With --branch: the first line of the commit\'s message' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l deferred-work -d 'The deferred-work ledger (default: workflow.deferred_work_path, else deferred-work.md in the artifact directory)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l runs-root -d 'Where run folders live (default: <project root>/_bmad-output/ultracode-goal)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l dry-run -d 'Show what would be recorded and applied; write nothing'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l full -d 'Whole ids and artifact paths where a person reads an item (default: the short handle `resolve` takes, and the file name)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l interactive -d 'Ask on standard input even when it is not a terminal'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l mine -d 'The guided pass asks only the items you decide (your user.email, by the ucg.decider rules)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l reuse-similar -d 'Reuse, for every pending item without an answer, the answer on record for an earlier wording of its question (same kind and source file, words at least `ucg.similarity` alike, default 0.8), listing each; its entry notes `reused_from`'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resolve" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resume" -l epic -d 'The epic id (default: the heartbeat\'s, else the current story\'s, else the checked-out epic branch\'s)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resume" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resume" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resume" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resume" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resume" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand resume" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand gate" -l rev -d 'Read the artifacts from the tree of commit REV instead of the work tree (no checkout)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand gate" -l format -d 'How the decision is printed: `text` (the blockers on stderr), `json` (the same as --json), `github` (GitHub Actions annotations on stdout), `junit` (a JUnit XML report on stdout)' -r -f -a "text\t''
json\t''
github\t''
junit\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand gate" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand gate" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand gate" -l full -d 'Whole ids and artifact paths where a person reads an item (default: the short handle `resolve` takes, and the file name)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand gate" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand gate" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand gate" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand gate" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand notify" -l exec -d 'The command to run on each change (through sh -c)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand notify" -l rev -d 'Read the artifacts from the tree of commit REV instead of the work tree (no checkout)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand notify" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand notify" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand notify" -l watch -d 'Keep watching the run\'s artifacts and announce every change (Ctrl-C ends); without it, one check (for cron, a hook, a CI step)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand notify" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand notify" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand notify" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status" -f -a "install" -d 'Install the gate hooks where git runs them: pre-commit, pre-push, pre-merge-commit, pre-applypatch, pre-rebase (a foreign hook is chained); with --server, the shared remote\'s pre-receive hook'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status" -f -a "uninstall" -d 'Remove the hooks git-ucg installed and restore the hooks they chained; unset the merge driver and take its lines out of .gitattributes'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status" -f -a "status" -d 'What is installed where, and whether git will run it'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -l only -d 'Install only this hook (repeatable)' -r -f -a "pre-commit\t''
pre-push\t''
pre-merge-commit\t''
pre-applypatch\t''
pre-rebase\t''
post-commit\t'Records a commit made while the gate would have refused it (`--no-verify` or `GIT_UCG_SKIP`, which git still runs it under) as a note under `refs/notes/ucg-bypass`'
post-merge\t'The same for a merge commit made past pre-merge-commit (`git merge --no-verify`)'
prepare-commit-msg\t'Opt-in (`hooks install --all-commits`): git runs it for every commit it makes, and it judges those no gate hook saw (cherry-pick, revert)'
reference-transaction\t'Opt-in (`hooks install --only reference-transaction`): every new commit on a branch, also those plumbing makes (`commit-tree` + `update-ref`); git runs it for every ref update'
pre-receive\t'The shared remote\'s gate (`hooks install --server`, in the repository pushes go to): a push that updates a protected branch to a commit whose tree tracks pending decisions'"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -l server -d 'Install the shared remote\'s gate, the pre-receive hook, instead of the commit and push hooks (run it in the repository pushes go to)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -l strict -d 'Also enforce the story invariants (git config ucg.gate.strict true)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -l agent -d 'Also merge the Claude Code Stop hook (`git ucg budget tick`) into .claude/settings.local.json'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -l all-commits -d 'Also gate the commits no gate hook sees (cherry-pick, revert) through the prepare-commit-msg hook, which git runs for every commit it makes'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -l merge-driver -d 'Also set up the merge driver for the answers file and the RED registry: merge.ucg in this repository\'s config, and a `merge=ucg` line for each in .gitattributes (commit it; every clone runs this once)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -l force -d 'Rewrite our hooks even when they are up to date (a chained hook is never overwritten)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -l hooks-path-ok -d 'Install into a core.hooksPath outside the repository, or where a hook manager (pre-commit, lefthook, husky) runs the hooks — which otherwise prints the snippet that gives that manager the gate, and writes nothing'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -l script -d 'Install shell scripts that look for git-ucg at every run ($GIT_UCG_BIN, PATH, then this binary\'s path) instead of links to this binary: a shell start slower per hook, but they follow the binary when it moves and refuse when it is gone'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from install" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l only -d 'Remove only this hook (repeatable; the merge driver then stays)' -r -f -a "pre-commit\t''
pre-push\t''
pre-merge-commit\t''
pre-applypatch\t''
pre-rebase\t''
post-commit\t'Records a commit made while the gate would have refused it (`--no-verify` or `GIT_UCG_SKIP`, which git still runs it under) as a note under `refs/notes/ucg-bypass`'
post-merge\t'The same for a merge commit made past pre-merge-commit (`git merge --no-verify`)'
prepare-commit-msg\t'Opt-in (`hooks install --all-commits`): git runs it for every commit it makes, and it judges those no gate hook saw (cherry-pick, revert)'
reference-transaction\t'Opt-in (`hooks install --only reference-transaction`): every new commit on a branch, also those plumbing makes (`commit-tree` + `update-ref`); git runs it for every ref update'
pre-receive\t'The shared remote\'s gate (`hooks install --server`, in the repository pushes go to): a push that updates a protected branch to a commit whose tree tracks pending decisions'"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l agent -d 'Also remove our Stop hook from .claude/settings.local.json'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from status" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from status" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from status" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand hooks; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and not __fish_seen_subcommand_from start end check show" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and not __fish_seen_subcommand_from start end check show" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and not __fish_seen_subcommand_from start end check show" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and not __fish_seen_subcommand_from start end check show" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and not __fish_seen_subcommand_from start end check show" -f -a "start" -d 'Write .baseline-<story> at HEAD, only when absent (mid-story it is kept, never regenerated)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and not __fish_seen_subcommand_from start end check show" -f -a "end" -d 'Write .commit-<story> at HEAD (refreshed every time: the story\'s end moves with follow-ups)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and not __fish_seen_subcommand_from start end check show" -f -a "check" -d 'Whether .tests-ran-<story> is fresh: its baseline= line equals .baseline-<story>. Exit 1 if not'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and not __fish_seen_subcommand_from start end check show" -f -a "show" -d 'A story\'s markers and the range between them'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from start" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from start" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from start" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from start" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from end" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from end" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from end" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from end" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from end" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from check" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from check" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from check" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from check" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from show" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from show" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from show" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from show" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "set" -d 'Move between planning and pursuing: `--phase planning|pursuing` with the slot flags --outcome, --verification-surface, --constraints, --boundaries, --non-goals, --max-iterations N, --blocked-stop, --plan-path, --resume-summary, --completion-evidence a,b, --codex-goal-objective TEXT|-'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "set-verdict" -d 'Write the objective verdict (`--verdict APPROVE|REQUEST_CHANGES|COMMENT|absent`); from planning it first advances to pursuing'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "request-complete" -d 'The only way to `complete`: every gate must hold (`--codex-goal-json JSON|FILE|-` when a Codex goal is armed)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "set-budget-limited" -d 'System-only: stop at the no-progress budget'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "set-blocked" -d 'System-only: stop as blocked (`--reason TEXT`)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "resume-pursuit" -d 'User-only: leave budget_limited and pursue again with a fresh no-progress count'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "set-stories" -d 'Replace the story list (`--json \'[…]\'`, all unconfirmed) or derive one confirmed story from the outcome (`--single`). Planning only'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "confirm-story" -d 'Confirm one story: `confirm-story ID`'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "confirm-all-stories" -d 'Confirm every unconfirmed story'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "reorder-stories" -d 'Reorder the stories: `--order ID,ID,…` (every id once). Planning only'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "add-story" -d 'Add a story: `--json \'{…}\' --evidence TEXT --rationale TEXT`'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "revise-story" -d 'Revise a story (back to unconfirmed): `revise-story ID --json \'{…}\' --evidence --rationale`'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "retire-story" -d 'Retire a story: `retire-story ID --evidence TEXT --rationale TEXT`'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "split-story" -d 'Split a story into two or more: `split-story ID --json \'[…]\' --evidence --rationale`'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "get" -d 'The session\'s state as JSON with its computed `pristine`, or `null` when it is not an active, valid state (terminal states read as inactive)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "status" -d 'The phase token of the session\'s state, or `absent`'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "serialize-requirements" -d 'One line per confirmed story, for the reviewer'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "serialize-review-context" -d 'The five-slot review context as one line of JSON'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "list-others" -d 'Other sessions\' live, non-pristine pursuits, one tab-separated line each'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "adopt" -d 'Take over another session\'s pursuit (after the user chose it): `--src SID`'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "claim-review-dispatch" -d 'Hook-only: consume one final code-review dispatch, or say why not'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "approve-review-dispatch-renewal" -d 'User-only: five more review dispatches, pinned to the current review artifact'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "dismiss-review-finding" -d 'User-only: dismiss one blocking review finding: `--ref FILE:LINE --class CLASS --rationale TEXT`'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "current" -d 'The current story: the first confirmed story without an APPROVE verdict (derived, never stored)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "show" -d 'The whole pursuit at a glance: phase, budget, stories with their verdicts, review lane, liveness'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "gc" -d 'Remove other sessions\' state that is no longer live (the TTL rule), and their stale artifacts'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "stop-hook" -d 'The ultragoal part of the Stop hook: Claude Code\'s hook event on stdin, its decision on stdout'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and not __fish_seen_subcommand_from set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff" -f -a "diff" -d 'The accumulated diff of the pursuit, from the HEAD recorded when it first entered pursuing'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-verdict" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-verdict" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-verdict" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-verdict" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-verdict" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-verdict" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from request-complete" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from request-complete" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from request-complete" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from request-complete" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from request-complete" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from request-complete" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-budget-limited" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-budget-limited" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-budget-limited" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-budget-limited" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-budget-limited" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-budget-limited" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-blocked" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-blocked" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-blocked" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-blocked" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-blocked" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-blocked" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from resume-pursuit" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from resume-pursuit" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from resume-pursuit" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from resume-pursuit" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from resume-pursuit" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from resume-pursuit" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-stories" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-stories" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-stories" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-stories" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-stories" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from set-stories" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from confirm-story" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from confirm-story" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from confirm-story" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from confirm-story" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from confirm-story" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from confirm-story" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from confirm-all-stories" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from confirm-all-stories" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from confirm-all-stories" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from confirm-all-stories" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from confirm-all-stories" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from confirm-all-stories" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from reorder-stories" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from reorder-stories" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from reorder-stories" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from reorder-stories" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from reorder-stories" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from reorder-stories" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from add-story" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from add-story" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from add-story" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from add-story" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from add-story" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from add-story" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from revise-story" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from revise-story" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from revise-story" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from revise-story" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from revise-story" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from revise-story" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from retire-story" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from retire-story" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from retire-story" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from retire-story" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from retire-story" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from retire-story" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from split-story" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from split-story" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from split-story" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from split-story" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from split-story" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from split-story" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from get" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from get" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from get" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from get" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from get" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from status" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from status" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from status" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from status" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from serialize-requirements" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from serialize-requirements" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from serialize-requirements" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from serialize-requirements" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from serialize-requirements" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from serialize-requirements" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from serialize-review-context" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from serialize-review-context" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from serialize-review-context" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from serialize-review-context" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from serialize-review-context" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from serialize-review-context" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from list-others" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from list-others" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from list-others" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from list-others" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from list-others" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from list-others" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from adopt" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from adopt" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from adopt" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from adopt" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from adopt" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from adopt" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from claim-review-dispatch" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from claim-review-dispatch" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from claim-review-dispatch" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from claim-review-dispatch" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from claim-review-dispatch" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from claim-review-dispatch" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from approve-review-dispatch-renewal" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from approve-review-dispatch-renewal" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from approve-review-dispatch-renewal" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from approve-review-dispatch-renewal" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from approve-review-dispatch-renewal" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from approve-review-dispatch-renewal" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from dismiss-review-finding" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from dismiss-review-finding" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from dismiss-review-finding" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from dismiss-review-finding" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from dismiss-review-finding" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from dismiss-review-finding" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from current" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from current" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from current" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from current" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from current" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from current" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from current" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from show" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from show" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from show" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from show" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from show" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from gc" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from gc" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from gc" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from gc" -s n -l dry-run -d 'Say what would be removed, remove nothing'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from gc" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from gc" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from gc" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from gc" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from stop-hook" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from stop-hook" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from stop-hook" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from stop-hook" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from stop-hook" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from stop-hook" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -l base -d 'Start from this revision instead of the recorded base' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -l session -d 'Inspect another session\'s state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -l omt-dir -d 'The state directory (default: $OMT_DIR, else $HOME/.omt/<project>)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -l stat -d 'A diffstat, as `git diff --stat` prints it (the default)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -l name-status -d 'Status letter and path(s) per file, as `git diff --name-status` prints them'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -l numstat -d 'Added and deleted lines per file, as `git diff --numstat` prints them'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -s p -l patch -d 'A unified diff that `git apply` accepts (`-p` like git)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -s M -l find-renames -d 'Detect renames (the default)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -l no-renames -d 'Do not detect renames'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -l no-cache -d 'Count lines afresh, without the line-count cache under the git directory'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand goal; and __fish_seen_subcommand_from diff" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and not __fish_seen_subcommand_from list status show repair reconcile resume" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and not __fish_seen_subcommand_from list status show repair reconcile resume" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and not __fish_seen_subcommand_from list status show repair reconcile resume" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and not __fish_seen_subcommand_from list status show repair reconcile resume" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and not __fish_seen_subcommand_from list status show repair reconcile resume" -f -a "list" -d 'Every run, newest first by name, as its status line'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and not __fish_seen_subcommand_from list status show repair reconcile resume" -f -a "status" -d 'One run\'s status line (audit warnings on stderr)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and not __fish_seen_subcommand_from list status show repair reconcile resume" -f -a "show" -d 'One run\'s catalog: requirements, complexity, phases, events, decisions, QA report'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and not __fish_seen_subcommand_from list status show repair reconcile resume" -f -a "repair" -d 'Correct meta.json\'s phase fields toward the event log (asks first), and append `status.repaired`'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and not __fish_seen_subcommand_from list status show repair reconcile resume" -f -a "reconcile" -d 'Bring the work item\'s Markdown snapshots and meta.json in line with its most trusted ledger (asks first; forward sync of a successful adapter receipt does not ask)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and not __fish_seen_subcommand_from list status show repair reconcile resume" -f -a "resume" -d 'Pick the phase to re-run, ask, and print the handoff for the pipeline (never runs a phase)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from list" -l runs-dir -d 'Where run directories live (default: <project root>/docs/superpowers/runs)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from list" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from list" -l by-mtime -d 'Newest first by meta.json\'s modification time (as the pipeline\'s hooks pick the newest run)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from list" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from list" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from status" -l runs-dir -d 'Where run directories live (default: <project root>/docs/superpowers/runs)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from status" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from status" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from status" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from show" -l runs-dir -d 'Where run directories live (default: <project root>/docs/superpowers/runs)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from show" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from show" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from show" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from repair" -l runs-dir -d 'Where run directories live (default: <project root>/docs/superpowers/runs)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from repair" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from repair" -s y -l yes -d 'Answer yes to the confirmation'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from repair" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from repair" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from repair" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from repair" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from reconcile" -l runs-dir -d 'Where run directories live (default: <project root>/docs/superpowers/runs)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from reconcile" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from reconcile" -s y -l yes -d 'Answer yes to the confirmation'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from reconcile" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from reconcile" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from reconcile" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from reconcile" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from resume" -l runs-dir -d 'Where run directories live (default: <project root>/docs/superpowers/runs)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from resume" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from resume" -s y -l yes -d 'Answer yes to the confirmation (not for an aborted run)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from resume" -l allow-failed -d 'Offer a failed phase for re-running too'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from resume" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from resume" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from resume" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from resume" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and not __fish_seen_subcommand_from append query audit invalidate retro reset escalated" -l ledger -d 'The ledger file (default: $ANVIL_LEDGER, else ~/.anvil/ledger.jsonl)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and not __fish_seen_subcommand_from append query audit invalidate retro reset escalated" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and not __fish_seen_subcommand_from append query audit invalidate retro reset escalated" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and not __fish_seen_subcommand_from append query audit invalidate retro reset escalated" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and not __fish_seen_subcommand_from append query audit invalidate retro reset escalated" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and not __fish_seen_subcommand_from append query audit invalidate retro reset escalated" -f -a "append" -d 'Append the lessons of a JSONL file (`-`: standard input): all are validated before any is written'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and not __fish_seen_subcommand_from append query audit invalidate retro reset escalated" -f -a "query" -d 'The lessons whose patterns share the most tokens with PATTERN (invalidated ones left out)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and not __fish_seen_subcommand_from append query audit invalidate retro reset escalated" -f -a "audit" -d 'Check the ledger and its index: null lessons, duplicate ids, malformed lines, index desync both ways. Exit 1 when anything is found'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and not __fish_seen_subcommand_from append query audit invalidate retro reset escalated" -f -a "invalidate" -d 'Mark a lesson invalid (a marker line; nothing is rewritten)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and not __fish_seen_subcommand_from append query audit invalidate retro reset escalated" -f -a "retro" -d 'A retroactive lesson from a post-ship fix: the criterion that shipped with a gap'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and not __fish_seen_subcommand_from append query audit invalidate retro reset escalated" -f -a "reset" -d 'The reset loop after a failed verify or review: append the lesson, add it to the contract\'s counter_examples, count the loop — or escalate the task'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and not __fish_seen_subcommand_from append query audit invalidate retro reset escalated" -f -a "escalated" -d 'The escalated tasks of Anvil\'s state file, each with its loop count, its last lesson and the options the human has'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from append" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from append" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from append" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from append" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from query" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from query" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from query" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from query" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from audit" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from audit" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from audit" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from audit" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from invalidate" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from invalidate" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from invalidate" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from invalidate" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from retro" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from retro" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from retro" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from retro" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l ledger -d 'The ledger file (default: $ANVIL_LEDGER, else ~/.anvil/ledger.jsonl)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l task -d 'The task\'s id in the state file' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l state -d 'Anvil\'s state file (anvil/state.json)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l contract -d 'The task\'s contract (YAML, or YAML front matter)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l gap -d 'What the contract failed to constrain' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l evidence -d 'What the failed check showed (default: the failing criteria of --verify-result)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l remediation -d 'The counter-example the next attempt must honour' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l verify-result -d 'Anvil\'s verify-result.json: the reset runs only when it failed (not allGreen), and takes its evidence and criterion from the failing criteria' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l court-result -d 'The Court\'s verdict (JSON): the reset runs only on a request-changes with a gap' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l criterion -d 'The criterion the lesson closes (default: the first failing one of the results)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l pattern -d 'The lesson\'s pattern words, which `lesson query` matches (repeatable, or comma-separated)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from reset" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from escalated" -l state -d 'Anvil\'s state file (anvil/state.json)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from escalated" -l ledger -d 'The ledger the last lessons are read from (default: $ANVIL_LEDGER, else ~/.anvil/ledger.jsonl)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from escalated" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from escalated" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from escalated" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from escalated" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand lesson; and __fish_seen_subcommand_from escalated" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and not __fish_seen_subcommand_from tick show reset" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and not __fish_seen_subcommand_from tick show reset" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and not __fish_seen_subcommand_from tick show reset" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and not __fish_seen_subcommand_from tick show reset" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and not __fish_seen_subcommand_from tick show reset" -f -a "tick" -d 'The Stop hook: count one turn for the current story; at the ceiling write the escalation marker and tell the agent to stop. Reads the hook event on stdin; never blocks, never fails'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and not __fish_seen_subcommand_from tick show reset" -f -a "show" -d 'The turn counters: every story\'s, or one story\'s'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and not __fish_seen_subcommand_from tick show reset" -f -a "reset" -d 'Start a story\'s count afresh (deletes its counter, under the directory\'s lock)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from tick" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from tick" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from tick" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from tick" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from show" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from show" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from show" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from show" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from reset" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from reset" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from reset" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from reset" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from reset" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand epic" -l epic -d 'The epic id (default: the heartbeat\'s, else the current story\'s, else the checked-out epic branch\'s)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand epic" -l rev -d 'Read the artifacts from the tree of commit REV instead of the work tree (no checkout)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand epic" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand epic" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand epic" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand epic" -l fast -d 'Skip per-story file and line counts (commits only)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand epic" -l no-cache -d 'Count lines afresh, without the line-count cache under the git directory'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand epic" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand epic" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand epic" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l story -d 'One story\'s range (see `git ucg epic`)' -r -f -a "(git-ucg __complete stories 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l epic -d 'The epic\'s accumulated range (the default); with an ID, which epic, for --story too (default as for `git ucg epic`)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l range -d 'Any range of commits, `A..B` (anything git rev-parse understands on each side)' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l epic-id -d 'The former spelling of `--epic ID`, kept working' -r
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l stat -d 'A diffstat, as `git diff --stat` prints it (the default)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l name-status -d 'Status letter and path(s) per file, as `git diff --name-status` prints them'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l numstat -d 'Added and deleted lines per file, as `git diff --numstat` prints them'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -s p -l patch -d 'A unified diff that `git apply` accepts (`-p` like git)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l json -d 'Print one JSON document instead of text; its "schema" key names its format and version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -s M -l find-renames -d 'Detect renames (the default)'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l no-renames -d 'Do not detect renames'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l no-cache -d 'Count lines afresh, without the line-count cache under the git directory'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand diff" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand id; and not __fish_seen_subcommand_from mint" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand id; and not __fish_seen_subcommand_from mint" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand id; and not __fish_seen_subcommand_from mint" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand id; and not __fish_seen_subcommand_from mint" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand id; and not __fish_seen_subcommand_from mint" -f -a "mint" -d 'Print the stable id of a decision, exactly as UltraCode Goal\'s red_ids.py mints it. Touches nothing'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand id; and __fish_seen_subcommand_from mint" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand id; and __fish_seen_subcommand_from mint" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand id; and __fish_seen_subcommand_from mint" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand id; and __fish_seen_subcommand_from mint" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and not __fish_seen_subcommand_from apply" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and not __fish_seen_subcommand_from apply" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and not __fish_seen_subcommand_from apply" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and not __fish_seen_subcommand_from apply" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and not __fish_seen_subcommand_from apply" -f -a "apply" -d 'Write the RED registry from a preflight scan, or re-apply the recorded answers to it'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and __fish_seen_subcommand_from apply" -l impl-artifacts -d 'The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and __fish_seen_subcommand_from apply" -l scan -d 'The preflight scan: a JSON object with a "reds" list; `-` reads standard input' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and __fish_seen_subcommand_from apply" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and __fish_seen_subcommand_from apply" -l from-sidecar -d 'Re-apply the recorded answers to the reds already in the registry'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and __fish_seen_subcommand_from apply" -l dry-run -d 'Print the document without writing anything'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and __fish_seen_subcommand_from apply" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand reds; and __fish_seen_subcommand_from apply" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand merge-file" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand merge-file" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand merge-file" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand merge-file" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand demo" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand demo" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand demo" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand demo" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand install-docs" -l prefix -d 'Install under this prefix instead (a packager\'s layout)' -r -F
complete -c git-ucg -n "__fish_git_ucg_using_subcommand install-docs" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand install-docs" -l dry-run -d 'Say where each file would go; write nothing'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand install-docs" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand install-docs" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand install-docs" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand help" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand help" -l no-pager -d 'Never send output through a pager'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand help" -s h -l help -d 'Print help'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand help" -s V -l version -d 'Print version'
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from start" -f -a "(git-ucg __complete stories 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from end" -f -a "(git-ucg __complete stories 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from check" -f -a "(git-ucg __complete stories 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand baseline; and __fish_seen_subcommand_from show" -f -a "(git-ucg __complete stories 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from show" -f -a "(git-ucg __complete stories 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand budget; and __fish_seen_subcommand_from reset" -f -a "(git-ucg __complete stories 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from status" -f -a "(git-ucg __complete sdlc-runs 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from show" -f -a "(git-ucg __complete sdlc-runs 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from repair" -f -a "(git-ucg __complete sdlc-runs 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from reconcile" -f -a "(git-ucg __complete sdlc-runs 2>/dev/null)"
complete -c git-ucg -n "__fish_git_ucg_using_subcommand sdlc; and __fish_seen_subcommand_from resume" -f -a "(git-ucg __complete sdlc-runs 2>/dev/null)"
