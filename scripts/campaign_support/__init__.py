"""What the fault campaigns (scripts/campaign-*) share: running the command line, pairing a
watch, waiting for a condition, percentiles, and printing the figures."""
import json
import math
import subprocess
import sys
import time


def caresync(binary, store, *arguments, check=True, timeout=60):
    """Runs `caresync ARGUMENTS… --store STORE`; its standard output. Raises if it fails and
    `check` is set."""
    done = subprocess.run([binary, *arguments, "--store", store], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise RuntimeError(f"caresync {' '.join(arguments)}: {done.stderr.strip()}")
    return done.stdout


def pair_watch(cli, watch_sim, store, endpoint, state_dir, name=None, attempts=1):
    """Pairs a watch as a person would: `caresync pair --role watch`, then `watch-sim pair CODE`
    at `endpoint` (HOST:PORT) with `state_dir`. Tries `attempts` times, 15 s apart (the primary
    judges 10 pairings a minute); raises if none succeeds."""
    for attempt in range(attempts):
        if attempt:
            time.sleep(15)
        code = json.loads(caresync(cli, store, "pair", "--role", "watch", "--json"))["code"]
        done = subprocess.run([watch_sim, "pair", code, "--connect", endpoint, "--state-dir", state_dir, "--json"]
                              + (["--name", name] if name else []), capture_output=True, text=True, timeout=60)
        if done.returncode == 0:
            return state_dir
    raise RuntimeError(f"pairing a watch in {state_dir} failed: {done.stdout.strip()} {done.stderr.strip()}")


def progress(campaign, message):
    """Says on standard error how far the campaign has come: the test suite takes a campaign
    that says nothing for a minute as hung."""
    print(f"{campaign}: {message}", file=sys.stderr, flush=True)


def wait_until(condition, timeout, interval=0.01):
    """Whether `condition()` held within `timeout` seconds, tried every `interval`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return condition()


def percentiles(values, scale=1.0, digits=3):
    """`{"n", "p50", "p90", "p99", "max"}` of `values` (nearest rank), each times `scale` and
    rounded to `digits`; only `{"n": 0}` without values."""
    if not values:
        return {"n": 0}
    ordered = sorted(values)

    def rank(p):
        return round(ordered[max(0, math.ceil(p * len(ordered)) - 1)] * scale, digits)

    return {"n": len(ordered), "p50": rank(0.50), "p90": rank(0.90), "p99": rank(0.99),
            "max": round(ordered[-1] * scale, digits)}


def finish(options, figures, problems, summary):
    """Prints the figures and exits: with `--json` one JSON object (with the first 20 problems),
    else the first 50 problems and the lines `summary(figures)` gives. Exits 1 if a rule broke
    (`figures["broken"]`, by default the number of problems), else 0."""
    figures.setdefault("broken", len(problems))
    figures["problems"] = problems[:20]
    if options.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        for problem in problems[:50]:
            print(problem)
        for line in summary(figures):
            print(line)
    sys.exit(1 if figures["broken"] else 0)
