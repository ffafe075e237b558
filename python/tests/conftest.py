"""Shared fixtures: one default runtime for the session, and a compile cache
so that the runtimes tests build with other budgets load the compiled guest
instead of compiling it again."""

import pytest

import coderun


@pytest.fixture(scope="session")
def compile_cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("compile-cache"))


@pytest.fixture(scope="session")
def runtime(compile_cache):
    with coderun.Runtime(compile_cache_dir=compile_cache) as runtime:
        yield runtime


@pytest.fixture
def make_runtime(compile_cache):
    """Builds runtimes with other budgets, closed at the end of the test."""
    built = []

    def make(**options):
        options.setdefault("compile_cache_dir", compile_cache)
        runtime = coderun.Runtime(**options)
        built.append(runtime)
        return runtime

    yield make
    for runtime in built:
        runtime.close()
