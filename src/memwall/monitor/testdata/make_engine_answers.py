#!/usr/bin/env python3
"""Writes the engine fixtures of this folder (README.md, "Engine metrics"): one serving load of
vLLM and one of SGLang, as the engine's /metrics exposition at the end of a 60 s window and as
the answer of Prometheus's /api/v1/query_range to memwall's engine query over that window (five
points, 15 s apart). Written by hand from the engines' metric definitions (names, types, labels
and bucket bounds as the files cited in data/monitor/exporters.json define them); the numbers are
chosen so the operating point can be worked out by hand (the tests assert it).

Run from the repository root: python3 src/memwall/monitor/testdata/make_engine_answers.py
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
T0 = 1764669600.0  # 2025-12-02 10:00:00 UTC
TIMES = [T0 + 15 * i for i in range(5)]


def go_float(v):
    """A sample value as Prometheus writes it (Go strconv.FormatFloat(v, 'f'/'e', -1))."""
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def le_text(bound):
    # prometheus_client writes bucket bounds with floatToGoString: 0.01 -> "0.01", 1 -> "1.0".
    if math.isinf(bound):
        return "+Inf"
    return repr(float(bound))


class Load:
    def __init__(self, labels):
        self.labels = labels
        self.series = []  # (name, extra labels, [values at TIMES])
        self.meta = []  # (name, type, help)

    def gauge(self, name, help_text, values, extra=None):
        self.meta.append((name, "gauge", help_text))
        self.series.append((name, extra or {}, values))

    def counter(self, name, help_text, base, increase, extra=None, values=None):
        self.meta.append((name, "counter", help_text))
        vals = values or [base + increase * i / 4 for i in range(5)]
        self.series.append((name, extra or {}, vals))

    def histogram(self, name, help_text, bounds, cumulative_increase, sum_increase, scale=10):
        """`cumulative_increase`: {bound: increase of that bucket's cumulative count}, the
        bounds not listed taking the next lower listed one's value (0 below the first)."""
        self.meta.append((name, "histogram", help_text))
        inc, last = [], 0
        for b in list(bounds) + [math.inf]:
            last = cumulative_increase.get(b, last)
            inc.append(last)
        for b, i in zip(list(bounds) + [math.inf], inc):
            base = i * scale
            self.series.append((name + "_bucket", {"le": le_text(b)},
                                [base + i * k / 4 for k in range(5)]))
        total = inc[-1]
        self.series.append((name + "_count", {}, [total * scale + total * k / 4 for k in range(5)]))
        self.series.append((name + "_sum", {}, [sum_increase * scale + sum_increase * k / 4
                                                for k in range(5)]))

    def exposition(self, header):
        out = [header]
        for name, kind, help_text in self.meta:
            out.append(f"# HELP {name} {help_text}")
            out.append(f"# TYPE {name} {kind}")
            for sname, extra, vals in self.series:
                base = sname
                for suffix in ("_bucket", "_count", "_sum", "_total"):
                    if kind in ("histogram", "counter") and sname.endswith(suffix):
                        base = sname[: -len(suffix)]
                        break
                if base != name and sname != name:
                    continue
                labels = {**self.labels, **extra}
                text = ",".join(f'{k}="{v}"' for k, v in labels.items())
                out.append(f"{sname}{{{text}}} {go_float(float(vals[-1]))}")
        return "\n".join(out) + "\n"

    def range_answer(self, scrape_labels, names):
        result = []
        for sname, extra, vals in self.series:
            if sname not in names:
                continue
            metric = {"__name__": sname, **scrape_labels, **self.labels, **extra}
            result.append({"metric": metric,
                           "values": [[t, go_float(float(v))] for t, v in zip(TIMES, vals)]})
        return {"status": "success", "data": {"resultType": "matrix", "result": result}}


def selected_names():
    with open(os.path.join(HERE, "../../../../data/monitor/exporters.json")) as f:
        table = json.load(f)["exporters"]["engines"]
    names = set()
    for s in table["sets"]:
        for m in s["metrics"]:
            if m["type"] == "histogram":
                names.update(m["name"] + p for p in ("_bucket", "_sum", "_count"))
            else:
                names.add(m["name"])
    return names


def vllm_load():
    # vLLM's v1 engine as vllm/v1/metrics/loggers.py at 005a810 (0.9 to 0.10) defines it:
    # labels model_name and engine; max_model_len 8192 for the 1-2-5 length buckets.
    v = Load({"model_name": "meta-llama/Llama-3.1-8B-Instruct", "engine": "0"})
    v.gauge("vllm:num_requests_running", "Number of requests in model execution batches.",
            [20, 24, 28, 24, 24])
    v.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.",
            [0, 0, 1, 0, 0])
    usage = [0.30, 0.35, 0.40, 0.35, 0.35]
    v.gauge("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage."
            "DEPRECATED: Use vllm:kv_cache_usage_perc instead.", usage)
    v.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", usage)
    v.counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.",
              40, 3, values=[40, 41, 41, 42, 43])
    v.counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", 5_000_000, 240_000)
    v.counter("vllm:generation_tokens_total", "Number of generation tokens processed.",
              2_500_000, 120_000)
    v.counter("vllm:request_success_total", "Count of successfully processed requests.", 4000, 200,
              extra={"finished_reason": "stop"})
    v.counter("vllm:request_success_total", "Count of successfully processed requests.", 800, 40,
              extra={"finished_reason": "length"})
    v.meta.pop()  # one HELP/TYPE for both finished_reason series
    lengths = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000]
    v.histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.", lengths,
                {1000: 150, 2000: 240}, 240_000)
    v.histogram("vllm:request_generation_tokens", "Number of generation tokens processed.",
                lengths, {500: 140, 1000: 240}, 120_000)
    v.histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
                 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0],
                {0.06: 12, 0.08: 48, 0.1: 96, 0.25: 216, 0.5: 236, 0.75: 240}, 36.0)
    v.histogram("vllm:time_per_output_token_seconds", "Histogram of time per output token in "
                "seconds.",
                [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
                 10.0, 20.0, 40.0, 80.0],
                {0.01: 36000, 0.025: 110000, 0.05: 118000, 0.075: 119500, 0.1: 119760}, 1437.12)
    v.histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
                [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
                 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0],
                {5.0: 60, 10.0: 228, 15.0: 240}, 1440.0)
    return v


def sglang_load():
    # SGLang as python/sglang/srt/metrics/collector.py at 00ae9c1 defines it, without
    # collect_tokens_histogram (so no length histograms); label model_name.
    s = Load({"model_name": "meta-llama/Llama-3.1-8B-Instruct"})
    s.gauge("sglang:num_running_reqs", "The number of running requests.", [32] * 5)
    s.gauge("sglang:num_queue_reqs", "The number of requests in the waiting queue.", [4] * 5)
    s.gauge("sglang:token_usage", "The token usage.", [0.9] * 5)
    s.gauge("sglang:gen_throughput", "The generation throughput (token/s).", [2400] * 5)
    s.counter("sglang:prompt_tokens_total", "Number of prefill tokens processed.", 900_000, 180_000)
    # The server restarted between the third and fourth points: the counter starts again from 0.
    s.counter("sglang:generation_tokens_total", "Number of generation tokens processed.", 0, 0,
              values=[1_000_000, 1_036_000, 1_072_000, 36_000, 72_000])
    s.counter("sglang:num_requests_total", "Number of requests processed.", 1800, 360)
    s.histogram("sglang:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400],
                {0.4: 90, 0.6: 270, 0.8: 360}, 180.0)
    s.histogram("sglang:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
                [0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035, 0.040,
                 0.060, 0.080, 0.100, 0.200, 0.400, 0.600, 0.800, 1.000, 2.000, 4.000, 6.000,
                 8.000], {0.015: 100800, 0.020: 136800, 0.025: 144000}, 1872.0)
    s.histogram("sglang:e2e_request_latency_seconds",
                "Histogram of End-to-end request latency in seconds",
                [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600,
                 1200, 1800, 2400], {6: 216, 8: 360}, 1920.0)
    s.histogram("sglang:num_retractions", "Histogram of retraction counts per request.",
                [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 75, 100],
                {0: 358, 1: 360}, 2.0)
    return s


def main():
    names = selected_names()
    k8s = {"namespace": "llm", "container": "engine"}
    for tag, load, pod, job, header in [
        ("vllm-0.10", vllm_load(), "vllm-0", "vllm",
         "# vLLM v1 engine /metrics, as vllm/v1/metrics/loggers.py at 005a810 defines it "
         "(prometheus_client's _created samples left out)"),
        ("sglang", sglang_load(), "sglang-0", "sglang",
         "# SGLang /metrics, as python/sglang/srt/metrics/collector.py at 00ae9c1 defines it "
         "(prometheus_client's _created samples left out)"),
    ]:
        with open(os.path.join(HERE, f"{tag}.prom"), "w") as f:
            f.write(load.exposition(header))
        scrape = {"instance": f"{pod}.llm.svc:8000", "job": job, "pod": pod, **k8s}
        with open(os.path.join(HERE, f"prom-{tag}-range.json"), "w") as f:
            json.dump(load.range_answer(scrape, names), f, separators=(",", ":"))
            f.write("\n")


if __name__ == "__main__":
    main()
