"""The README's Python example runs as written."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def python_examples():
    section = README.read_text().split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_readme_runtime_example_runs():
    examples = python_examples()
    assert len(examples) == 2
    exec(compile(examples[0], "README.md", "exec"), {"__name__": "readme"})
