"""Inputs for the import benchmark (docs/benchmarks.md, "docket import of 704 beads issues and
628 Backlog.md files"), shaped like the two peers' own trackers and the same on every run
(seeded): python3 benches/import/inputs.py OUT writes OUT/beads/issues.jsonl and OUT/backlog/."""
import json, os, random, sys
random.seed(46)
root = sys.argv[1]
os.makedirs(f"{root}/beads", exist_ok=True)
words = "parser index claim board search merge branch import ready epic queue token budget schema worktree hook doctor".split()
def text(n):
    return " ".join(random.choice(words) for _ in range(n))
# beads: 704 issues, 39 epics, 359 parent-child edges, 166 blocks edges, comments on some.
lines = []
epics = [f"bd-e{i}" for i in range(39)]
ids = epics + [f"bd-{i:04x}" for i in range(704 - 39)]
kinds = ["task", "bug", "feature", "chore"]
statuses = ["open"] * 5 + ["closed"] * 4 + ["in_progress", "blocked", "deferred"]
for n, i in enumerate(ids):
    deps = []
    if n >= 39 and n < 39 + 359:
        deps.append({"issue_id": i, "depends_on_id": epics[n % 39], "type": "parent-child", "created_at": "2026-01-02T03:04:05Z", "created_by": "x"})
    if n > 39 and n % 4 == 0:
        deps.append({"issue_id": i, "depends_on_id": ids[random.randrange(39, n)], "type": "blocks", "created_at": "2026-01-02T03:04:05Z", "created_by": "x"})
    st = random.choice(statuses)
    o = {"id": i, "title": text(6), "description": text(random.randrange(50, 400)), "status": st,
         "priority": random.randrange(0, 5), "issue_type": "epic" if n < 39 else random.choice(kinds),
         "created_at": f"2026-01-{1 + n % 28:02d}T03:04:05Z", "updated_at": f"2026-02-{1 + n % 28:02d}T03:04:05Z",
         "labels": random.sample(words, 2), "dependencies": deps,
         "comments": [{"id": 1, "issue_id": i, "author": "ann", "text": text(30), "created_at": "2026-01-05T00:00:00Z"}] if n % 3 == 0 else []}
    if st == "closed":
        o["closed_at"] = "2026-03-01T00:00:00Z"
        o["close_reason"] = text(8)
    lines.append(json.dumps(o))
open(f"{root}/beads/issues.jsonl", "w").write("\n".join(lines) + "\n")
# Backlog.md: 628 files: 520 tasks, 93 completed, 15 drafts; dependencies and parents.
b = f"{root}/backlog/backlog"
for d in ["tasks", "completed", "drafts"]:
    os.makedirs(f"{b}/{d}", exist_ok=True)
open(f"{b}/config.yml", "w").write('project_name: "Bench"\n')
def task(folder, tid, n, extra=""):
    deps = f"\n  - BACK-{random.randrange(1, n)}" if n > 2 and n % 3 == 0 else ""
    fm = (f"---\nid: {tid}\ntitle: {text(5)}\nstatus: {'Done' if folder == 'completed' else random.choice(['To Do', 'In Progress', 'To Do'])}\n"
          f"assignee:\n  - '@ann'\ncreated_date: '2025-07-{1 + n % 28:02d} 10:00'\nlabels:\n  - {random.choice(words)}\n"
          f"dependencies:{deps if deps else ' []'}\n{extra}priority: {random.choice(['high', 'medium', 'low'])}\n---\n")
    body = (f"\n## Description\n\n{text(random.randrange(40, 300))}\n\n## Acceptance Criteria\n<!-- AC:BEGIN -->\n- [ ] #1 {text(6)}\n- [x] #2 {text(6)}\n<!-- AC:END -->\n\n"
            f"## Implementation Notes\n\n{text(60)}\n")
    open(f"{b}/{folder}/{tid.lower()} - {text(3).replace(' ', '-')}.md", "w").write(fm + body)
for n in range(1, 521):
    extra = f"parent_task_id: BACK-{n - 1}\n" if n % 10 == 5 else ""
    task("tasks", f"BACK-{n}", n, extra)
for n in range(521, 614):
    task("completed", f"BACK-{n}", n)
for n in range(1, 16):
    task("drafts", f"DRAFT-{n}", n)
