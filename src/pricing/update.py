#!/usr/bin/env python3
"""Regenerate src/pricing/prices.json, the price table built into the binaries.

Usage:

    pip download litellm --no-deps -d /tmp/litellm
    cd /tmp/litellm && unzip -o litellm-*.whl \
        'litellm/model_prices_and_context_window_backup.json' 'litellm-*.dist-info/METADATA'
    python3 src/pricing/update.py \
        /tmp/litellm/litellm/model_prices_and_context_window_backup.json \
        > src/pricing/prices.json

The input is LiteLLM's price list as the PyPI package `litellm` ships it (MIT
licence, BerriAI/litellm). The litellm version for the header is read from the
wheel's `litellm-VERSION.dist-info/METADATA` next to the `litellm/` folder, or
given with `--litellm-version VERSION`.

What is kept (Python 3 standard library only; the output depends only on the
input, so running it twice gives the same bytes):

- Models of the writers the toolkit reads:
  - Anthropic Claude models (a key containing `claude`) sold by Anthropic itself
    or by the clouds that resell them: `litellm_provider` one of
    CLAUDE_PROVIDERS below, in every name form LiteLLM lists (`claude-…`,
    `vertex_ai/claude-…@date`, `anthropic.claude-…-v1:0`, `us.anthropic.…`, …).
    Resellers with their own prices (OpenRouter, Databricks, Copilot, …) are
    left out.
  - Google's Gemini models as the Gemini API sells them: `litellm_provider`
    `gemini`, a `chat` mode, and a name (after `gemini/`) starting `gemini-`.
  - OpenAI GPT, o-series and codex models: `litellm_provider` `openai`, a
    `chat`, `responses` or `completion` mode, and a name (after any `openai/`)
    starting `gpt-`, `o<digit>`, `codex-` or `chatgpt-`. Fine-tuned (`ft:`)
    entries are left out.
  - LiteLLM's `alias_of` entries that point at a kept model.
- Only the fields src/pricing.rs reads, under LiteLLM's own names: the
  provider, `input_cost_per_token`, `output_cost_per_token`,
  `cache_read_input_token_cost`, `cache_creation_input_token_cost`,
  `cache_creation_input_token_cost_above_1hr`, the long-context tier variants
  of those five (`…_above_<N>k_tokens`), and `alias_of`. Batch, flex and
  priority rates are not kept.
- Rates are written exactly as the input spells them (no float round trip).
- An entry needs both an input and an output rate (or `alias_of`); entries
  whose input and output rates are both zero are dropped (placeholders such as
  LiteLLM's `sample_spec`, never a real price).

Output: one JSON object, one model per line, keys sorted, preceded by the
header member `ci_prices` (litellm version, source file, LiteLLM's copyright and
MIT licence notice).
"""

import json
import os
import re
import sys

CLAUDE_PROVIDERS = {
    "anthropic",
    "bedrock",
    "bedrock_converse",
    "bedrock_mantle",
    "vertex_ai-anthropic_models",
    "azure_ai",
}
OPENAI_MODES = {"chat", "responses", "completion"}
OPENAI_NAME = re.compile(r"^(gpt-|o[0-9]|codex-|chatgpt-)")

BASE_RATES = (
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "cache_creation_input_token_cost_above_1hr",
)
# The permission notice of LiteLLM's MIT licence, which copies of its data carry.
MIT_NOTICE = (
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this software "
    'and associated documentation files (the "Software"), to deal in the Software without '
    "restriction, including without limitation the rights to use, copy, modify, merge, publish, "
    "distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the "
    "Software is furnished to do so, subject to the following conditions: The above copyright "
    "notice and this permission notice shall be included in all copies or substantial portions of "
    'the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR '
    "IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A "
    "PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE "
    "LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR "
    "OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER "
    "DEALINGS IN THE SOFTWARE."
)
TIER = re.compile(r"^(?P<base>.+)_above_(?P<k>[0-9]+)k_tokens$")


class Number(str):
    """A JSON number kept as the text the input wrote."""


def number(text):
    return Number(text)


def is_rate_field(key):
    if key in BASE_RATES:
        return True
    m = TIER.match(key)
    return bool(m) and m.group("base") in BASE_RATES


def keep(name, entry):
    provider = entry.get("litellm_provider")
    if "claude" in name.lower() and provider in CLAUDE_PROVIDERS:
        return True
    if provider == "gemini" and entry.get("mode") == "chat":
        return name.split("/")[-1].startswith("gemini-")
    if provider == "openai" and entry.get("mode") in OPENAI_MODES:
        return bool(OPENAI_NAME.match(name.split("/")[-1]))
    return False


def is_zero(text):
    try:
        return float(text) == 0.0
    except (TypeError, ValueError):
        return False


def slim(entry):
    out = {}
    if isinstance(entry.get("litellm_provider"), str):
        out["litellm_provider"] = entry["litellm_provider"]
    for key, value in entry.items():
        if is_rate_field(key) and isinstance(value, Number):
            out[key] = value
    return out


def litellm_version(path, given):
    if given:
        return given
    root = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    for name in sorted(os.listdir(root)):
        if name.startswith("litellm-") and name.endswith(".dist-info"):
            meta = os.path.join(root, name, "METADATA")
            if os.path.exists(meta):
                with open(meta, encoding="utf-8") as f:
                    for line in f:
                        if line.startswith("Version:"):
                            return line.split(":", 1)[1].strip()
    sys.exit(
        "update.py: cannot find litellm-*.dist-info/METADATA beside the litellm/ "
        "folder; pass --litellm-version VERSION"
    )


def dump(value):
    if isinstance(value, Number):
        return str(value)
    if isinstance(value, dict):
        items = sorted(value.items())
        return "{" + ",".join(json.dumps(k) + ":" + dump(v) for k, v in items) + "}"
    return json.dumps(value, ensure_ascii=False)


def main(argv):
    args = argv[1:]
    version = None
    if len(args) >= 2 and args[0] == "--litellm-version":
        version, args = args[1], args[2:]
    if len(args) != 1:
        sys.exit(
            "usage: python3 src/pricing/update.py [--litellm-version VERSION] "
            "PATH/TO/model_prices_and_context_window_backup.json > src/pricing/prices.json"
        )
    path = args[0]
    with open(path, encoding="utf-8") as f:
        data = json.load(f, parse_float=number, parse_int=number)
    version = litellm_version(path, version)

    models = {}
    for name, entry in data.items():
        if not isinstance(entry, dict) or name == "sample_spec":
            continue
        if "alias_of" in entry:
            continue
        if not keep(name, entry):
            continue
        rates = slim(entry)
        i, o = rates.get("input_cost_per_token"), rates.get("output_cost_per_token")
        if i is None or o is None or (is_zero(i) and is_zero(o)):
            continue
        models[name] = rates
    for name, entry in data.items():
        if isinstance(entry, dict) and isinstance(entry.get("alias_of"), str):
            if entry["alias_of"] in models and name not in models:
                models[name] = {"alias_of": entry["alias_of"]}

    header = {
        "litellm": version,
        "source": "PyPI litellm %s, litellm/model_prices_and_context_window_backup.json" % version,
        "licence": "MIT",
        "copyright": "Copyright (c) 2023 Berri AI",
        "licence_notice": MIT_NOTICE,
        "generated_by": "src/pricing/update.py",
    }
    lines = ['"ci_prices":' + dump(header)]
    for name in sorted(models):
        lines.append(json.dumps(name) + ":" + dump(models[name]))
    sys.stdout.write("{\n" + ",\n".join(lines) + "\n}\n")


if __name__ == "__main__":
    main(sys.argv)
