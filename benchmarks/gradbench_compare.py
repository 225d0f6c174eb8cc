#!/usr/bin/env python3
"""Compare gradus with other GradBench tools, eval by eval.

For each chosen eval (default: all), runs the eval against each tool in turn through
../shared/gradbench/run.sh (gradus as `gradus gradbench` with the multicore backend on 1 and
on 2 threads, then GradBench's `manual` C++ tool, `jax-sync` and `pytorch` when installed),
keeps the session logs, and writes into the output folder:

  results.md     one Markdown table per eval: per input and function, each tool's median
                 `evaluate` time (✗ marks an invalid output, FAILED/undefined/timeout an
                 evaluation that did not answer), and the speed-up of gradus on one thread
                 against each other tool (other tool's time / gradus's time: above 1, gradus
                 is faster), plus gradus's own speed-up from 1 to 2 threads;
  results.json   the same numbers;
  EVAL-FUNCTION.png   time per input (log scale), one line per tool (matplotlib, installed
                 into GradBench's venv when missing);
  logs/EVAL/TOOL.jsonl   the session logs.

Usage:
  benchmarks/gradbench_compare.py [EVAL ...] [--out DIR] [--tools gradus-1t,manual,...]
      [--small] [--eval-args EVAL='ARGS'] [--min-runs N] [--min-seconds S] [--timeout S]
  benchmarks/gradbench_compare.py --report DIR     (tables and plots from DIR's logs again)

Needs ../shared/gradbench/setup.sh to have run (GB_BUILD, default ~/.cache/gradbench; JAX
comes with a full setup, PyTorch with GB_WITH_PYTORCH=1) and a release build of gradus
(cargo build --release -p gradus-cli). Sizes are each eval's defaults (ht: --max 11), or small
ones with --small; `--eval-args gmm='-d 2 10 -k 5'` replaces an eval's arguments.
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "gradbench"
EVALS = ["hello", "lse", "llsq", "ode", "det", "kmeans", "gmm", "ba", "ht", "lstm",
         "particle", "saddle"]
DEFAULT_ARGS = {"ht": "--max 11"}
SMALL_ARGS = {
    "lse": "-n 1000 10000 100000",
    "llsq": "-n 256 1024 4096",
    "ode": "-n 1000 10000 -s 1 10",
    "det": "-l 5 6 7 8",
    "kmeans": "-k 10 100 -n 1000 -d 8",
    "gmm": "-d 2 10 20 -k 5 10 25 -n 1000",
    "ba": "--min 1 --max 3",
    "ht": "--min 1 --max 4",
    "lstm": "-l 2 -c 1024 4096",
}
OUTCOMES = {0: "ok", 1: "error", 2: "undefined", 3: "failure", 4: "invalid", 5: "timeout",
            6: "interrupt"}


def gb_build():
    return Path(os.environ.get("GB_BUILD") or
                Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gradbench")


def venv_python():
    return gb_build() / "venv" / "bin" / "python"


def has_module(module):
    py = venv_python()
    return py.exists() and subprocess.run(
        [str(py), "-c", f"import {module}"], capture_output=True).returncode == 0


def tool_commands(names):
    """The run.sh tool argument of each chosen tool, in order."""
    gradus = REPO / "target" / "release" / "gradus"
    out = []
    for name in names:
        if name.startswith("gradus-") and name.endswith("t"):
            threads = name[len("gradus-"):-1]
            out.append((name, f"$ {shlex.quote(str(gradus))} gradbench --threads {threads}"))
        elif name == "gradus":
            out.append((name, f"$ {shlex.quote(str(gradus))} gradbench"))
        else:
            out.append((name, name))
    return out


def default_tools():
    tools = ["gradus-1t", "gradus-2t", "manual"]
    if has_module("jax"):
        tools.append("jax-sync")
    if has_module("torch"):
        tools.append("pytorch")
    return tools


# --- running -----------------------------------------------------------------------------

def run_one(eval_name, tool_name, tool_cmd, args, log, timeout):
    """Runs one eval against one tool, streaming run.sh's progress lines; the exit status."""
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["bash", str(SHARED / "run.sh"), eval_name, tool_cmd, str(log), "--", *args]
    env = dict(os.environ)
    if timeout:
        env["GB_TIMEOUT"] = str(timeout)
    start = time.time()
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        line = line.rstrip()
        # run.sh's own summary repeats the progress lines: show the progress only.
        if line.startswith(" [") or line.startswith("summary:"):
            print(f"    {line.strip()}", flush=True)
    rc = proc.wait()
    print(f"  {eval_name} / {tool_name}: {OUTCOMES.get(rc, rc)} in {time.time() - start:.0f} s",
          flush=True)
    return rc


# --- reading logs ------------------------------------------------------------------------

def describe_input(value, message_id):
    """A name for an input without a description: a number as itself, else the message id."""
    if isinstance(value, (int, float)):
        return f"{value:g}"
    return f"#{message_id}"


def read_log(path):
    """The evaluations of a session log: a list of dicts with function, input, status and the
    median evaluate time (ns)."""
    messages, responses, analyses = {}, {}, {}
    order = []
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "message" in entry:
            m = entry["message"]
            messages[m.get("id")] = m
            if m.get("kind") == "evaluate":
                order.append(m.get("id"))
            elif m.get("kind") == "analysis":
                analyses[m.get("of")] = m
        elif "response" in entry:
            r = entry["response"]
            responses[r.get("id")] = r
    rows = []
    for i in order:
        m = messages[i]
        r = responses.get(i)
        a = analyses.get(i)
        times = [t["nanoseconds"] for t in (r or {}).get("timings") or []
                 if t.get("name") == "evaluate"]
        if r is None:
            status = "unanswered"
        elif not r.get("success"):
            status = "failed"
        elif a is None:
            status = "unchecked"
        else:
            status = "valid" if a.get("valid") else "invalid"
        rows.append({
            "function": m.get("function"),
            "input": m.get("description") or describe_input(m.get("input"), i),
            "status": status,
            "runs": len(times),
            "median_ns": statistics.median(times) if times else None,
        })
    return rows


def collect(out):
    """{eval: {tool: rows}} from out/logs/EVAL/TOOL.jsonl and the recorded exit statuses."""
    status = {}
    if (out / "status.json").exists():
        status = json.loads((out / "status.json").read_text())
    data = {}
    logs = out / "logs"
    if not logs.is_dir():
        return data, status
    for eval_dir in sorted(logs.iterdir()):
        for log in sorted(eval_dir.glob("*.jsonl")):
            data.setdefault(eval_dir.name, {})[log.stem] = read_log(log)
    return data, status


# --- reporting ---------------------------------------------------------------------------

def fmt_ns(ns):
    if ns is None:
        return "–"
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.1f} µs"
    if ns < 1e9:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e9:.2f} s"


def cell(row):
    if row is None:
        return "–"
    if row["status"] in ("failed", "unanswered"):
        return row["status"].upper() if row["status"] == "failed" else "unanswered"
    mark = " ✗" if row["status"] == "invalid" else ""
    return fmt_ns(row["median_ns"]) + mark


def ratio(other, base):
    if not other or not base or other["median_ns"] is None or base["median_ns"] is None:
        return "–"
    if other["status"] not in ("valid", "unchecked") or base["status"] not in ("valid", "unchecked"):
        return "–"
    r = other["median_ns"] / base["median_ns"]
    return f"{r:.2f}×" if r < 10 else f"{r:.0f}×"


def tables(data, status, tool_order):
    out = ["# gradus against other GradBench tools", "",
           "Median `evaluate` time per input (each tool's own timing of the function alone). "
           "✗: invalid output. Speed-up columns: the other tool's time divided by gradus's on "
           "one thread (above 1: gradus is faster); `2t/1t`: gradus's speed-up from 1 to 2 "
           "threads.", ""]
    for eval_name in sorted(data, key=lambda e: EVALS.index(e) if e in EVALS else 99):
        # Tools without an implementation of the eval are left out.
        per_tool = {t: rows for t, rows in data[eval_name].items()
                    if rows or status.get(eval_name, {}).get(t) != "undefined"}
        if not per_tool:
            continue
        tools = [t for t in tool_order if t in per_tool] + \
            [t for t in per_tool if t not in tool_order]
        base_name = "gradus-1t" if "gradus-1t" in per_tool else next(
            (t for t in tools if t.startswith("gradus")), None)
        others = [t for t in tools if not t.startswith("gradus")]
        out.append(f"## {eval_name}")
        out.append("")
        notes = []
        for t in tools:
            st = status.get(eval_name, {}).get(t)
            rows = per_tool[t]
            valid = sum(r["status"] == "valid" for r in rows)
            note = f"{t}: {valid}/{len(rows)} valid"
            if st is not None and st != "ok":
                note += f" (session: {st})"
            notes.append(note)
        out.append("; ".join(notes) + ".")
        out.append("")
        header = ["input", "function"] + tools
        if base_name:
            header += [f"{o} / {base_name}" for o in others]
            if "gradus-2t" in per_tool and base_name == "gradus-1t":
                header.append("gradus 2t/1t")
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        keys = []
        for t in tools:
            for r in per_tool[t]:
                k = (r["input"], r["function"])
                if k not in keys:
                    keys.append(k)
        index = {t: {(r["input"], r["function"]): r for r in per_tool[t]} for t in tools}
        for k in keys:
            line = [k[0], k[1]] + [cell(index[t].get(k)) for t in tools]
            if base_name:
                base = index[base_name].get(k)
                line += [ratio(index[o].get(k), base) for o in others]
                if "gradus-2t" in per_tool and base_name == "gradus-1t":
                    line.append(ratio(base, index["gradus-2t"].get(k)))
            out.append("| " + " | ".join(line) + " |")
        out.append("")
    return "\n".join(out) + "\n"


def plot(out):
    """Draws EVAL-FUNCTION.png from out/results.json (run under the venv's python)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = json.loads((out / "results.json").read_text())
    written = []
    for eval_name, per_tool in results["data"].items():
        functions = []
        for rows in per_tool.values():
            for r in rows:
                if r["function"] not in functions:
                    functions.append(r["function"])
        for function in functions:
            inputs = []
            for rows in per_tool.values():
                for r in rows:
                    if r["function"] == function and r["input"] not in inputs:
                        inputs.append(r["input"])
            if len(inputs) < 1:
                continue
            fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(inputs) + 3), 4.5))
            for tool in results["tools"] + [t for t in per_tool if t not in results["tools"]]:
                rows = per_tool.get(tool)
                if not rows:
                    continue
                pts = [(inputs.index(r["input"]), r["median_ns"] / 1e9) for r in rows
                       if r["function"] == function and r["median_ns"]
                       and r["status"] in ("valid", "unchecked")]
                if pts:
                    xs, ys = zip(*pts)
                    style = "-o" if tool.startswith("gradus") else "--s"
                    ax.plot(xs, ys, style, label=tool, markersize=4)
            ax.set_yscale("log")
            ax.set_xticks(range(len(inputs)))
            ax.set_xticklabels(inputs, rotation=45, ha="right", fontsize=7)
            ax.set_ylabel("median evaluate time (s)")
            ax.set_title(f"{eval_name}: {function}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
            fig.tight_layout()
            path = out / f"{eval_name}-{function}.png"
            fig.savefig(path, dpi=110)
            plt.close(fig)
            written.append(path.name)
    print(f"plots: {', '.join(written) if written else 'none'}")


def report(out, tool_order):
    data, status = collect(out)
    (out / "results.md").write_text(tables(data, status, tool_order))
    (out / "results.json").write_text(json.dumps(
        {"tools": tool_order, "status": status, "data": data}, indent=1))
    print(f"table: {out / 'results.md'}")
    py = venv_python()
    if not py.exists():
        print("no GradBench venv: no plots", file=sys.stderr)
        return
    if not has_module("matplotlib"):
        print("installing matplotlib into the GradBench venv", flush=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "matplotlib"], check=False)
    subprocess.run([str(py), str(Path(__file__).resolve()), "--plot", str(out)], check=False)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("evals", nargs="*", help=f"evals to run (default: all: {' '.join(EVALS)})")
    p.add_argument("--out", type=Path, default=REPO / "target" / "gradbench-compare",
                   help="output folder (default: target/gradbench-compare)")
    p.add_argument("--tools", help="comma-separated tools (default: gradus-1t, gradus-2t, "
                   "manual, and jax-sync and pytorch when installed); gradus-Nt is gradus "
                   "on N threads")
    p.add_argument("--small", action="store_true", help="small sizes, for a quick look")
    p.add_argument("--eval-args", action="append", default=[], metavar="EVAL='ARGS'",
                   help="arguments for an eval, replacing the default sizes")
    p.add_argument("--min-runs", type=int, default=3,
                   help="runs per evaluation at least (default 3: the median then leaves out "
                   "a first run that includes compiling, as JAX's does)")
    p.add_argument("--min-seconds", type=float, default=1)
    p.add_argument("--timeout", type=float, default=600,
                   help="seconds a tool may take per response (default 600)")
    p.add_argument("--report", type=Path, metavar="DIR",
                   help="only write the tables and plots from DIR's logs")
    p.add_argument("--plot", type=Path, help=argparse.SUPPRESS)
    a = p.parse_args()

    if a.plot:
        plot(a.plot)
        return 0
    tools = a.tools.split(",") if a.tools else default_tools()
    if a.report:
        report(a.report, tools)
        return 0
    if not (SHARED / "run.sh").exists():
        sys.exit(f"no GradBench scripts at {SHARED}")
    if not venv_python().exists():
        sys.exit(f"GradBench is not set up in {gb_build()}: run {SHARED / 'setup.sh'} first")
    if any(t.startswith("gradus") for t in tools) and \
            not (REPO / "target" / "release" / "gradus").exists():
        sys.exit("no target/release/gradus: run cargo build --release -p gradus-cli first")
    evals = a.evals or EVALS
    unknown = [e for e in evals if e not in EVALS]
    if unknown:
        sys.exit(f"unknown eval(s): {' '.join(unknown)} (evals: {' '.join(EVALS)})")
    eval_args = dict(DEFAULT_ARGS)
    if a.small:
        eval_args.update(SMALL_ARGS)
    for item in a.eval_args:
        name, _, args = item.partition("=")
        eval_args[name] = args

    out = a.out
    out.mkdir(parents=True, exist_ok=True)
    status_path = out / "status.json"
    status = json.loads(status_path.read_text()) if status_path.exists() else {}
    commands = tool_commands(tools)
    for n, eval_name in enumerate(evals, 1):
        args = shlex.split(eval_args.get(eval_name, ""))
        if eval_name != "hello":
            args += ["--min-runs", str(a.min_runs), "--min-seconds", str(a.min_seconds)]
        print(f"[{n}/{len(evals)}] {eval_name} {' '.join(args)}", flush=True)
        for tool_name, tool_cmd in commands:
            print(f"  {eval_name} / {tool_name} ...", flush=True)
            log = out / "logs" / eval_name / f"{tool_name}.jsonl"
            rc = run_one(eval_name, tool_name, tool_cmd, args, log, a.timeout)
            status.setdefault(eval_name, {})[tool_name] = OUTCOMES.get(rc, str(rc))
            status_path.write_text(json.dumps(status, indent=1))
    report(out, tools)
    return 0


if __name__ == "__main__":
    sys.exit(main())
