"""Tests of the Python module memwall: the same answers as the CLI's --json, real values, errors.

Run by CTest (python_memwall) with PYTHONPATH=build/python and MEMWALL_BINARY=build/memwall; by
hand: PYTHONPATH=build/python python3 -m unittest -v python/test_memwall.py
"""

import json
import math
import os
import subprocess
import unittest

import memwall

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY = os.environ.get("MEMWALL_BINARY", os.path.join(HERE, "..", "build", "memwall"))


def cli_json(*args):
    """Runs the memwall binary with --json and returns the parsed object."""
    out = subprocess.run([BINARY, *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


class CatalogTest(unittest.TestCase):
    def test_ids(self):
        self.assertIn("llama-3.1-70b", memwall.models())
        self.assertIn("hgx-h100", memwall.nodes())
        self.assertIn("ib-ndr", memwall.fabrics())
        self.assertIn("nvidia-h100-sxm", memwall.accelerators())

    def test_accelerator_by_alias_is_the_catalog_entry(self):
        h100 = memwall.accelerator("h100")
        self.assertEqual(h100["id"], "nvidia-h100-sxm")
        shown = cli_json("catalog", "show", "h100")
        self.assertEqual(shown["kind"], "accelerator")
        self.assertEqual(h100, shown["entry"])

    def test_model_shape(self):
        m = memwall.model("llama-3.1-70b")
        self.assertEqual(m["layers"], 80)
        self.assertEqual(m["hidden"], 8192)
        self.assertEqual(m["kv_heads"], 8)

    def test_node_and_fabric(self):
        self.assertEqual(memwall.node("hgx-h100")["devices"], 8)
        self.assertEqual(memwall.fabric("ib-ndr")["id"], "ib-ndr")

    def test_unknown_name_is_a_value_error_naming_the_nearest(self):
        with self.assertRaises(ValueError) as ctx:
            memwall.accelerator("h1000")
        self.assertIsInstance(ctx.exception, memwall.InputError)
        self.assertIn("h1000", str(ctx.exception))
        self.assertIn("h100", str(ctx.exception))


class InferTest(unittest.TestCase):
    ARGS = dict(model="llama-3.1-70b", gpu="h100", tp=4, batch=8, input=512, output=128)

    def test_same_answer_as_the_cli(self):
        py = memwall.infer(**self.ARGS)
        cli = cli_json("infer", "--model", "llama-3.1-70b", "--gpu", "h100", "--tp", "4",
                       "--batch", "8", "--input", "512", "--output", "128")
        self.assertEqual(set(py), set(cli))
        for key in ("ttft_s", "tpot_s", "e2e_s", "throughput_tokens_per_s",
                    "memory_per_gpu_bytes", "max_batch", "bound", "mfu", "mbu"):
            self.assertEqual(py[key], cli[key], key)
        self.assertEqual(py["memory"], cli["memory"])
        self.assertEqual(py["deployment"], cli["deployment"])

    def test_definitions_hold(self):
        r = memwall.infer(**self.ARGS)
        self.assertAlmostEqual(r["e2e_s"], r["ttft_s"] + 127 * r["tpot_s"], delta=1e-12)
        self.assertAlmostEqual(r["throughput_tokens_per_s"], 8 * 128 / r["e2e_s"], delta=1e-6)
        # KV cache: 8 sequences x 640 tokens x 327,680 B per token / TP 4.
        self.assertEqual(r["memory"]["kv_cache_bytes"], 8 * 640 * 81920)
        self.assertEqual(r["deployment"]["devices"], 4)

    def test_fp8_recipe_matches_the_cli(self):
        args = dict(model="deepseek-v3", gpu="h200", tp=8, batch=64, input=2048, output=128,
                    weight_precision="fp8", engine="vllm")
        block = memwall.infer(**args)  # the model's FP8 checkpoint: block-scaled
        tensor = memwall.infer(**args, fp8_recipe="tensorwise")
        cli = cli_json("infer", "--model", "deepseek-v3", "--gpu", "h200", "--tp", "8", "--batch",
                       "64", "--input", "2048", "--output", "128", "--weight-precision", "fp8",
                       "--engine", "vllm", "--fp8-recipe", "tensorwise")
        self.assertEqual(tensor["ttft_s"], cli["ttft_s"])
        self.assertGreater(block["ttft_s"], tensor["ttft_s"])
        with self.assertRaises(memwall.InputError):
            memwall.infer(**args, fp8_recipe="rowwise")

    def test_batch_max_and_sweep(self):
        m = memwall.infer(model="llama-3.1-8b", gpu="h100", batch="max", input=1024, output=1024)
        self.assertEqual(m["batching"], "continuous")
        self.assertLessEqual(m["batch"], m["max_batch"])
        self.assertEqual(m["continuous"]["throughput_tokens_per_s"], m["throughput_tokens_per_s"])
        v = memwall.infer(model="llama-3.1-8b", gpu="h100", batch="max", input=1024, output=1024,
                          engine="vllm", engine_version="0.6")
        self.assertEqual(v["deployment"]["engine_version"], "0.6")
        multi = memwall.infer(model="llama-3.1-8b", gpu="h100", batch="max", input=1024,
                              output=1024, engine="vllm", engine_version="0.6", scheduler_steps=10)
        cli = cli_json("infer", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "max",
                       "--input", "1024", "--output", "1024", "--engine", "vllm",
                       "--engine-version", "0.6", "--scheduler-steps", "10")
        self.assertEqual(multi["throughput_tokens_per_s"], cli["throughput_tokens_per_s"])
        self.assertGreater(multi["throughput_tokens_per_s"], v["throughput_tokens_per_s"])
        s = memwall.infer(model="llama-3.1-8b", gpu="h100", batch=[1, 8, 64], input=128,
                          output=128)
        self.assertEqual([row["batch"] for row in s["sweep"]], [1, 8, 64])
        cli = cli_json("infer", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "1,8,64",
                       "--input", "128", "--output", "128")
        self.assertEqual([r["tpot_s"] for r in s["sweep"]], [r["tpot_s"] for r in cli["sweep"]])

    def test_precisions(self):
        fp8 = memwall.infer(model="llama-3.1-8b", gpu="h100", input=128, output=128,
                            weight_precision="fp8", kv_precision="fp8")
        bf16 = memwall.infer(model="llama-3.1-8b", gpu="h100", input=128, output=128)
        self.assertEqual(fp8["deployment"]["weight_precision"], "fp8_e4m3")
        # One byte per weight instead of two, except the embedding and LM head (2 x 128256 x
        # 4096, untied), which stay in bf16.
        head = 2 * 128256 * 4096
        expected = bf16["memory"]["weights_bytes"] / 2 + head
        self.assertAlmostEqual(fp8["memory"]["weights_bytes"] / expected, 1.0, delta=1e-3)

    def test_bad_input_is_a_value_error_naming_the_field(self):
        with self.assertRaises(ValueError) as ctx:
            memwall.infer(model="llama-3.1-8b", gpu="h1000", input=8, output=8)
        self.assertIn("h1000", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            memwall.infer(model="llama-3.1-8b", gpu="h100", input=0, output=8)
        self.assertIn("input", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            memwall.infer(model="llama-3.1-8b", gpu="h100", input=8, output=8,
                          weight_precision="fp7")
        self.assertIn("weight_precision", str(ctx.exception))
        with self.assertRaises(ValueError):
            memwall.infer(model="llama-3.1-8b", gpu="h100", input=8, output=8,
                          memory_utilization=math.nan)
        with self.assertRaises(ValueError):
            memwall.infer(model="llama-3.1-8b", gpu="h100", input=8, output=8, batch="abc")
        for batch in (0, 2**70, [1, 2**70], True, 1.5):
            with self.assertRaises(ValueError, msg=repr(batch)) as ctx:
                memwall.infer(model="llama-3.1-8b", gpu="h100", input=8, output=8, batch=batch)
            self.assertIn("batch", str(ctx.exception))

    def test_impossible_configuration_is_an_infeasible_error(self):
        with self.assertRaises(memwall.InfeasibleError) as ctx:
            memwall.infer(model="llama-3.1-70b", gpu="h100", tp=3, input=8, output=8)
        self.assertIsInstance(ctx.exception, RuntimeError)
        # 70B in bf16 (141 GB) does not fit one 80 GB H100.
        with self.assertRaises(memwall.InfeasibleError):
            memwall.infer(model="llama-3.1-70b", gpu="h100", input=8, output=8)

    def test_offload_same_answer_as_the_cli(self):
        args = ["--model", "deepseek-v3", "--gpu", "4090", "--weight-precision", "int4",
                "--input", "512", "--output", "128", "--offload", "auto", "--host-memory", "1024"]
        py = memwall.infer(model="deepseek-v3", gpu="4090", weight_precision="int4", input=512,
                           output=128, offload="auto", host_memory_gb=1024)
        cli = cli_json("infer", *args)
        self.assertEqual(py["offload"], cli["offload"])
        self.assertEqual(py["tpot_s"], cli["tpot_s"])
        self.assertEqual(py["offload"]["strategy"], "experts")


class TrainTest(unittest.TestCase):
    ARGS = ["--model", "gpt3-175b", "--gpu", "a100", "--gpus", "1024", "--tp", "8", "--pp", "8",
            "--micro-batch", "1", "--global-batch", "1536", "--seq", "2048", "--recompute",
            "selective", "--sequence-parallel", "--zero", "1", "--tokens", "300e9",
            "--price-per-gpu-hour", "2"]

    def run_py(self, **changes):
        args = dict(model="gpt3-175b", gpu="a100", gpus=1024, tp=8, pp=8, micro_batch=1,
                    global_batch=1536, seq=2048, recompute="selective", sequence_parallel=True,
                    zero=1, tokens=300e9, price_per_gpu_hour=2)
        args.update(changes)
        return memwall.train(**args)

    def test_same_answer_as_the_cli(self):
        py = self.run_py()
        cli = cli_json("train", *self.ARGS)
        self.assertEqual(set(py), set(cli))
        for key in ("step_time_s", "tokens_per_s_per_gpu", "model_tflops_per_gpu", "mfu", "hfu",
                    "memory_per_gpu_bytes", "breakdown", "memory_breakdown", "config", "train",
                    "intervals"):
            self.assertEqual(py[key], cli[key], key)
        low, high = py["intervals"]["step_time_s"]
        self.assertLess(low, py["step_time_s"])
        self.assertGreater(high, py["step_time_s"])

    def test_definitions_hold(self):
        r = self.run_py()
        self.assertEqual(r["node"], "hgx-a100")
        self.assertEqual(r["fabric"], "ib-hdr")
        self.assertEqual(r["config"]["dp"], 16)
        self.assertAlmostEqual(sum(r["breakdown"].values()), r["step_time_s"], delta=1e-9)
        # MFU against the A100's dense bf16 peak, 312 TFLOP/s.
        self.assertAlmostEqual(r["mfu"], r["model_tflops_per_gpu"] / 312.0, delta=1e-12)
        self.assertAlmostEqual(r["train"]["cost_usd"], 2 * r["train"]["gpu_hours"], delta=1e-6)

    def test_framework_defaults_as_the_cli(self):
        args = ["--model", "gpt3-175b", "--gpu", "a100", "--gpus", "1024", "--tp", "8", "--pp",
                "8", "--micro-batch", "1", "--global-batch", "1536", "--seq", "2048"]
        py = memwall.train(model="gpt3-175b", gpu="a100", gpus=1024, tp=8, pp=8, micro_batch=1,
                           global_batch=1536, seq=2048)
        cli = cli_json("train", *args)
        self.assertEqual(py["config"], cli["config"])
        self.assertEqual(py["assumptions"], cli["assumptions"])
        self.assertEqual(py["config"]["zero"], 1)
        self.assertTrue(py["config"]["sequence_parallel"])
        self.assertTrue(py["defaults_applied"]["recompute_auto"])

    def test_errors(self):
        with self.assertRaises(memwall.InfeasibleError):
            self.run_py(precision="fp8")  # the A100 has no fp8 path
        with self.assertRaises(memwall.InfeasibleError):
            self.run_py(dp=15)  # 8 x 8 x 15 != 1024
        with self.assertRaises(ValueError) as ctx:
            self.run_py(recompute="some")
        self.assertIn("recompute", str(ctx.exception))
        with self.assertRaises(ValueError):
            memwall.train(model="gpt3-175b", gpu="a100", gpus=1024, tp=8, pp=8, micro_batch=1,
                          global_batch=1536, seq=2048, tokens=math.nan)

    def test_offload_matches_the_cli(self):
        args = ["--model", "llama-3.1-8b", "--gpu", "4090", "--gpus", "1", "--micro-batch", "1",
                "--global-batch", "16", "--seq", "2048", "--offload", "optimizer:cpu"]
        py = memwall.train(model="llama-3.1-8b", gpu="4090", gpus=1, micro_batch=1,
                           global_batch=16, seq=2048, offload="optimizer:cpu")
        cli = cli_json("train", *args)
        self.assertEqual(py["offload"]["strategy"], "optimizer:cpu")
        self.assertAlmostEqual(py["step_time_s"], cli["step_time_s"], places=9)
        self.assertEqual(py["offload"]["host_bytes_per_node"], cli["offload"]["host_bytes_per_node"])
        with self.assertRaises(ValueError):
            memwall.train(model="llama-3.1-8b", gpu="4090", gpus=1, micro_batch=1,
                          global_batch=16, seq=2048, offload="optimizer:gpu")


class NetTest(unittest.TestCase):
    def test_same_answer_as_the_cli_and_bus_factor(self):
        py = memwall.net("hgx-h100", op="allreduce", sizes="1M,1G")
        cli = cli_json("net", "--node", "hgx-h100", "--op", "allreduce", "--sizes", "1M,1G")
        self.assertEqual(py, cli)
        self.assertEqual([row["bytes"] for row in py["rows"]], [2**20, 2**30])
        for row in py["rows"]:
            # nccl-tests: busbw = algbw x 2(n-1)/n for all-reduce over n = 8 ranks.
            self.assertAlmostEqual(row["busbw_gbps"] / row["algbw_gbps"], 1.75, delta=1e-12)
            self.assertAlmostEqual(row["algbw_gbps"], row["bytes"] / row["time_s"] / 1e9,
                                   delta=1e-6)

    def test_sizes_as_ints_and_explain(self):
        r = memwall.net("hgx-h100", fabric="ib-ndr", nodes=2, sizes=[2**20, 2**30], explain=True)
        self.assertEqual(r["devices"], 16)
        self.assertIn("bottleneck", r["explain"])

    def test_compare(self):
        r = memwall.net(compare=["hgx-h100", "pcie-4090"], sizes="1G")
        cli = cli_json("net", "--compare", "hgx-h100", "pcie-4090", "--sizes", "1G")
        self.assertEqual(r, cli)

    def test_errors(self):
        with self.assertRaises(ValueError) as ctx:
            memwall.net("hgx-h100", nodes=2)
        self.assertIn("fabric", str(ctx.exception))
        with self.assertRaises(ValueError):
            memwall.net("hgx-h100", op="allsum")
        with self.assertRaises(ValueError):
            memwall.net()


class PlanTest(unittest.TestCase):
    def test_same_plans_as_the_cli(self):
        py = memwall.plan_infer(model="llama-3.1-8b", concurrency=32, input=512, output=128,
                                gpus=["h100", "a100"], serving="aggregated", top=3)
        cli = cli_json("plan", "infer", "--model", "llama-3.1-8b", "--concurrency", "32",
                       "--input", "512", "--output", "128", "--gpus", "h100,a100",
                       "--serving", "aggregated", "--top", "3")
        self.assertEqual(set(py), set(cli))
        self.assertGreater(len(py["plans"]), 0)
        del py["search_seconds"], cli["search_seconds"]
        self.assertEqual(py, cli)
        for plan in py["plans"]:
            self.assertLessEqual(plan["ttft_p99_s"], 1.0)
            self.assertLessEqual(plan["tpot_s"], 0.05)
            self.assertIn(plan["accelerator"],
                          (memwall.accelerator("h100")["id"], memwall.accelerator("a100")["id"]))

    def test_calibration_is_applied_as_the_cli_applies_it(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{"engines": {"vllm": {"step_overhead_us": 5000}}}')
        # The planner runs vLLM on the H100 (the support matrix), which the profile slows.
        args = dict(model="llama-3.1-8b", concurrency=8, gpus=["h100"], serving="aggregated",
                    top=1)
        py = memwall.plan_infer(calibration=f.name, **args)
        cli = cli_json("plan", "infer", "--model", "llama-3.1-8b", "--concurrency", "8",
                       "--gpus", "h100", "--serving", "aggregated", "--top", "1",
                       "--calibration", f.name)
        self.assertAlmostEqual(py["plans"][0]["tpot_s"], cli["plans"][0]["tpot_s"], places=12)
        plain = memwall.plan_infer(**args)
        self.assertGreater(py["plans"][0]["tpot_s"], plain["plans"][0]["tpot_s"] + 0.004)
        sim = memwall.simulate("llama-3.1-8b", "h100", engine="vllm", rate=2, requests=50,
                               dataset="fixed:256,64", calibration=f.name)
        sim_cli = cli_json("simulate", "--model", "llama-3.1-8b", "--gpu", "h100", "--engine",
                           "vllm", "--rate", "2", "--requests", "50", "--dataset", "fixed:256,64",
                           "--calibration", f.name)
        self.assertAlmostEqual(sim["tpot_s"]["mean"], sim_cli["tpot_s"]["mean"], places=12)
        os.unlink(f.name)

    def test_import_and_calibrate_give_the_cli_answer(self):
        import tempfile
        fixture = os.path.join(HERE, "..", "src", "memwall", "measure", "testdata",
                               "sglang_serve.jsonl")
        flags = dict(format="sglang-serve", model="llama-3.1-8b", gpu="h100", engine="sglang",
                     engine_version="0.4")
        py = memwall.import_benchmark(fixture, **flags)
        cli = subprocess.run([BINARY, "import", fixture, "--format", "sglang-serve", "--model",
                              "llama-3.1-8b", "--gpu", "h100", "--engine", "sglang",
                              "--engine-version", "0.4"],
                             check=True, capture_output=True, text=True)
        self.assertEqual(py["records"], json.loads(cli.stdout))
        self.assertEqual(len(py["records"]["records"]), 30)
        self.assertTrue(any("std_ttft_ms" in n for n in py["notes"]))
        with tempfile.TemporaryDirectory() as d:
            records = os.path.join(d, "records.json")
            with open(records, "w") as f:
                f.write(cli.stdout)
            profile = os.path.join(d, "profile.json")
            fit = memwall.calibrate([records], out=profile)
            fit_cli = cli_json("calibrate", records)
            self.assertEqual(fit["groups"], fit_cli["groups"])
            with open(profile) as f:
                self.assertEqual(json.load(f), fit_cli["profile"])
        with self.assertRaises(memwall.InputError) as e:
            memwall.import_benchmark(fixture, format="sglang-serve", gpu="h100", engine="sglang")
        self.assertIn("--model: required", str(e.exception))
        with self.assertRaises(memwall.InputError):
            memwall.calibrate([])

    def test_import_guidellm_and_aiperf_give_the_cli_answer(self):
        testdata = os.path.join(HERE, "..", "src", "memwall", "measure", "testdata")
        for fixture, fmt, count in (("guidellm_benchmarks.json", "guidellm", 31),
                                    ("aiperf_profile_export.json", "aiperf", 17)):
            path = os.path.join(testdata, fixture)
            py = memwall.import_benchmark(path, format=fmt, gpu="h100", engine="vllm",
                                          engine_version="0.10.2")
            cli = subprocess.run([BINARY, "import", path, "--format", fmt, "--gpu", "h100",
                                  "--engine", "vllm", "--engine-version", "0.10.2"],
                                 check=True, capture_output=True, text=True)
            self.assertEqual(py["records"], json.loads(cli.stdout))
            self.assertEqual(len(py["records"]["records"]), count)
        with self.assertRaises(memwall.InputError) as e:
            memwall.import_benchmark(os.path.join(testdata, "genai_perf_profile_export.json"),
                                     format="genai-perf", gpu="h100", engine="vllm")
        self.assertIn("output_sequence_length: the lengths vary", str(e.exception))

    def test_megatron_log_calibrates_train_as_the_cli(self):
        import tempfile
        log = os.path.join(HERE, "..", "src", "memwall", "measure", "testdata",
                           "megatron_training.log")
        flags = ["--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "8", "--tp", "1", "--pp",
                 "1", "--micro-batch", "1", "--seq-len", "8192", "--precision", "bf16"]
        py = memwall.import_benchmark(log, format="megatron-log", model="llama-3.1-8b", gpu="h100",
                                      gpus=8, tp=1, pp=1, micro_batch=1, seq_len=8192,
                                      precision="bf16")
        cli = subprocess.run([BINARY, "import", log, "--format", "megatron-log"] + flags,
                             check=True, capture_output=True, text=True)
        self.assertEqual(py["records"], json.loads(cli.stdout))
        self.assertEqual(len(py["records"]["records"]), 2)
        with tempfile.TemporaryDirectory() as d:
            records = os.path.join(d, "records.json")
            with open(records, "w") as f:
                f.write(cli.stdout)
            profile = os.path.join(d, "profile.json")
            fit = memwall.calibrate([records], out=profile)
            self.assertEqual(fit["groups"][0]["framework"], "megatron")
            args = dict(gpus=8, micro_batch=1, global_batch=128, seq=8192)
            train = memwall.train("llama-3.1-8b", "h100", calibration=profile, **args)
            train_cli = cli_json("train", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus",
                                 "8", "--micro-batch", "1", "--global-batch", "128", "--seq",
                                 "8192", "--calibration", profile)
            self.assertEqual(train["step_time_s"], train_cli["step_time_s"])
            plain = memwall.train("llama-3.1-8b", "h100", **args)
            self.assertGreater(train["step_time_s"], plain["step_time_s"])
        with self.assertRaises(memwall.InputError) as e:
            memwall.import_benchmark(log, format="megatron-log", model="llama-3.1-8b", gpu="h100",
                                     gpus=8, tp=1, pp=1, micro_batch=1)
        self.assertIn("--seq-len: required", str(e.exception))

    def test_plan_fleet_gives_the_cli_answer(self):
        week = os.path.join(HERE, "..", "docs", "examples", "fleet", "diurnal-week.csv")
        args = dict(model="llama-3.1-70b", input=1024, output=256, check_requests=0)
        py = memwall.plan_fleet(demand=week, **args)
        cli = cli_json("plan", "fleet", "--demand", week, "--model", "llama-3.1-70b", "--input",
                       "1024", "--output", "256", "--check-requests", "0")
        self.assertEqual(py, cli)
        self.assertEqual(len(py["hours"]), 168)
        # A list of rates is the same curve without lengths.
        with open(week) as f:
            rates = [float(line.split(",")[1]) for line in f.read().splitlines()[1:]]
        self.assertEqual(memwall.plan_fleet(demand=rates, **args)["hours"], py["hours"])
        with self.assertRaises(memwall.InputError):
            memwall.plan_fleet(demand=[1, "x"], **args)
        with self.assertRaises(memwall.InputError):
            memwall.plan_fleet(demand=rates, availability=1.0, **args)

    def test_confidence_removes_plans_and_rows_have_intervals(self):
        args = dict(model="llama-3.1-8b", concurrency=32, input=512, output=128,
                    gpus=["h100", "a100"], serving="aggregated", top=3)
        plain = memwall.plan_infer(**args)
        sure = memwall.plan_infer(confidence=0.8, **args)
        self.assertGreaterEqual(sure["confidence"]["plans_removed"], 0)
        for plan in plain["plans"]:
            low, high = plan["intervals"]["tpot_s"]
            self.assertLessEqual(low, plan["tpot_s"])
            self.assertGreaterEqual(high, plan["tpot_s"])
        for plan in sure["plans"]:
            self.assertLessEqual(plan["intervals"]["tpot_s"][1], 0.05)

    def test_verify_in_the_simulator(self):
        args = dict(model="llama-3.1-8b", concurrency=16, input=512, output=128, gpus="h100",
                    serving="aggregated", top=1, verify=1, verify_requests=500)
        py = memwall.plan_infer(**args)
        cli = cli_json("plan", "infer", "--model", "llama-3.1-8b", "--concurrency", "16",
                       "--input", "512", "--output", "128", "--gpus", "h100", "--serving",
                       "aggregated", "--top", "1", "--verify", "1", "--verify-requests", "500")
        checked = py["plans"][0]["verified"]
        self.assertEqual(checked, cli["plans"][0]["verified"])
        self.assertEqual(checked["requests"], 500)

    def test_errors(self):
        with self.assertRaises(ValueError) as ctx:
            memwall.plan_infer(model="llama-3.1-8b", rate=1, concurrency=1, gpus="h100")
        self.assertIn("rate", str(ctx.exception))
        with self.assertRaises(ValueError):
            memwall.plan_infer(model="llama-3.1-8b", concurrency=1, gpus=["h1000"])


class SimulateTest(unittest.TestCase):
    def test_same_answer_as_the_cli(self):
        py = memwall.simulate("llama-3.1-8b", "h100", rate=4, requests=200, dataset="fixed:256,64",
                              sla="ttft_p99=1s,tpot_p99=50ms")
        cli = cli_json("simulate", "--model", "llama-3.1-8b", "--gpu", "h100", "--rate", "4",
                       "--requests", "200", "--dataset", "fixed:256,64", "--sla",
                       "ttft_p99=1s,tpot_p99=50ms")
        self.assertEqual(py, cli)

    def test_errors(self):
        with self.assertRaises(ValueError) as ctx:
            memwall.simulate("llama-3.1-8b", "h100", requests=10)  # no load given
        self.assertIn("rate", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            memwall.simulate("llama-3.1-8b", "h100", rate=1, replica=2)
        self.assertIn("replicas", str(ctx.exception))
        with self.assertRaises(ValueError):
            memwall.simulate("llama-3.1-8b", "h100", rate="fast")



class HostileFileTest(unittest.TestCase):
    """Files no reader may hang, crash or exhaust memory on: memwall's InputError, with its message."""

    def setUp(self):
        import tempfile

        self.dir = tempfile.mkdtemp(prefix="memwall-py-")

    def tearDown(self):
        import shutil

        shutil.rmtree(self.dir)

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_yaml_alias_bomb_raises_input_error(self):
        # Nine levels of nine aliases: 9^9 leaves from about 300 bytes.
        lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for prev, cur in zip("abcdefgh", "bcdefghi"):
            lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
        for key in ("accelerators", "description"):
            path = self.write(f"bomb-{key}.yaml", ("\n".join(lines) + f"\n{key}: *i\n").encode())
            with self.assertRaisesRegex(memwall.InputError, "YAML aliases expand the document"):
                memwall.accelerators(catalog=[path])

    def test_binary_file_raises_input_error_with_its_message(self):
        path = self.write("garbage.json", b'{"accelerators": [\x91\xff\xfe\x00]}')
        with self.assertRaisesRegex(memwall.InputError, "not valid JSON") as ctx:
            memwall.models(catalog=[path])
        self.assertIn("\ufffd", str(ctx.exception))  # the invalid bytes, replaced

    def test_fifo_directory_and_device_raise_input_error(self):
        fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(fifo)
        for path, kind in ((fifo, "a FIFO"), (self.dir, "a directory"),
                           ("/dev/zero", "a character device")):
            with self.assertRaisesRegex(memwall.InputError, f"this is {kind}"):
                memwall.infer(path, "h100", input=512, output=128)
            with self.assertRaisesRegex(memwall.InputError, f"this is {kind}"):
                memwall.infer("llama-3.1-8b", "h100", input=512, output=128, calibration=path)


if __name__ == "__main__":
    unittest.main()
