"""A model of the reference registry writer, written from docs/formats/ucg.md §2.1-2.4 (not the
reference's code), used only as the comparison command in benches/reds.rs: same inputs, same work
(parse the scan and the answers, mint every id, write the pretty registry, print it)."""
import hashlib, json, re, sys, unicodedata
from pathlib import Path

def normalize(t):
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", t or "")).strip()

def mint(kind, source, decision):
    path = re.sub(r":\d+$", "", (source or "").strip())
    return f"{(kind or '').strip()}:{path}:{hashlib.sha256(normalize(decision).encode()).hexdigest()[:12]}"

def main():
    impl = Path(sys.argv[sys.argv.index("--impl-artifacts") + 1])
    scan = json.loads(Path(sys.argv[sys.argv.index("--scan") + 1]).read_text(encoding="utf-8"))["reds"]
    registry = impl / ".preflight-reds.json"
    old = json.loads(registry.read_text(encoding="utf-8")) if registry.exists() else {}
    try:
        decisions = json.loads((impl / ".decisions.json").read_text(encoding="utf-8"))["decisions"]
        closed = {d["id"] for d in decisions if isinstance(d, dict) and d.get("action") == "close" and isinstance(d.get("id"), str)}
    except Exception:
        closed = set()
    tombs = {t["id"]: t for t in old.get("resolved", []) if t.get("id")}
    reds = []
    for r in scan:
        rid = mint(r["kind"], r["source"], r["decision_needed"])
        if rid in closed:
            tombs[rid] = {"id": rid, "kind": r["kind"].strip(), "path": re.sub(r":\d+$", "", r["source"].strip())}
        else:
            reds.append({"id": rid, **{k: r.get(k, "") for k in ("source", "kind", "decision_needed", "evidence")}})
    text = json.dumps({"reds": reds, "resolved": sorted(tombs.values(), key=lambda t: t["id"])}, indent=2, ensure_ascii=False) + "\n"
    registry.write_text(text, encoding="utf-8")
    sys.stdout.write(text)

main()
