"""Scope fusion errors and registration: exceptions in a pass come out as
ParseError chained from the original, wrong return values as ParseError from
TypeError, and the registry's rules (names, override, general passes,
replacing a built-in pass)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest
from helpers import unique_name
from tf_scope_helpers import blk_pattern, block, fuse_block, make_pass, op, run

from opgraph.errors import ContextError, ParseError, RegistrationError
from opgraph.tensorflow.scope import (
    FusionScopesResult,
    PatternGroups,
    Scope,
    ScopeBasePass,
    ScopeFeature,
    ScopeGraph,
    ScopePattern,
    ScopesResult,
    register_scope_fusion_pass,
    registered_scope_fusion_passes,
)


def test_a_fusion_result_is_only_valid_inside_generate_fusion_result() -> None:
    kept: list[FusionScopesResult] = []

    def keep(scopes: list[Scope], result: FusionScopesResult) -> None:
        fuse_block(scopes, result)
        kept.append(result)

    name = unique_name("Keep")
    make_pass(name, blk_pattern, keep)
    run(block(), name)
    with pytest.raises(ContextError, match="only be used inside generate_fusion_result"):
        kept[0].set_name("late")


@pytest.mark.parametrize(
    "method", ["__init__", "define_patterns", "last_match_scopes_and_ops", "generate_fusion_result"]
)
def test_an_exception_in_a_pass_is_a_parse_error_chained_from_it(method: str) -> None:
    class Boom(Exception):
        pass

    def maybe_raise(where: str) -> None:
        if where == method:
            raise Boom(f"boom in {method}")

    class Raising(ScopeBasePass):
        pass_name = unique_name("Raising")

        def __init__(self) -> None:
            maybe_raise("__init__")

        def define_patterns(self) -> PatternGroups:
            maybe_raise("define_patterns")
            return blk_pattern()

        def last_match_scopes_and_ops(self, scope_graph: ScopeGraph, results: list[ScopesResult]) -> bool:
            maybe_raise("last_match_scopes_and_ops")
            chosen = ScopesResult()
            chosen.set_scopes([s for s in scope_graph.scope_tree.all_scopes() if s.sub_type == "blk"])
            results.append(chosen)
            return True

        def generate_fusion_result(self, scopes: list[Scope], result: FusionScopesResult) -> None:
            maybe_raise("generate_fusion_result")
            fuse_block(scopes, result)

    register_scope_fusion_pass(Raising)
    name = Raising.pass_name
    with pytest.raises(ParseError) as info:
        run(block(), name)
    expected = f"scope fusion pass '{name}' failed: {name}.{method} raised Boom: boom in {method}"
    assert str(info.value) == expected
    assert info.value.scope_pass == name
    assert isinstance(info.value.__cause__, Boom)


@pytest.mark.parametrize(
    ("patterns", "message"),
    [
        (lambda: [[ScopePattern()]], "found ScopePattern"),
        (lambda: "abc", "found str"),
        (lambda: [[[1]]], "found int"),
    ],
)
def test_define_patterns_must_return_three_nested_lists(patterns: Any, message: str) -> None:
    name = unique_name("BadPatterns")
    make_pass(name, patterns, fuse_block)
    with pytest.raises(ParseError, match=message) as info:
        run(block(), name)
    assert isinstance(info.value.__cause__, TypeError)


def test_a_last_match_returning_false_skips_the_pass() -> None:
    class Declines(ScopeBasePass):
        pass_name = unique_name("Declines")

        def define_patterns(self) -> PatternGroups:
            return blk_pattern()

        def last_match_scopes_and_ops(self, scope_graph: ScopeGraph, results: list[ScopesResult]) -> bool:
            results.append(ScopesResult())
            return False

        def generate_fusion_result(self, scopes: list[Scope], result: FusionScopesResult) -> None:
            raise AssertionError("not called")

    register_scope_fusion_pass(Declines)
    ops, records = run(block(), Declines.pass_name)
    assert list(ops) == [n for n, *_ in block()]
    assert records == []


def test_splicing_errors_name_the_op_and_the_missing_map() -> None:
    def no_output_map(scopes: list[Scope], result: FusionScopesResult) -> None:
        result.set_name("blk")
        result.set_type("MulRelu")
        result.insert_inputs("mul", [0, 1])
        result.insert_outputs("relu", [0])

    name = unique_name("NoOutputMap")
    make_pass(name, blk_pattern, no_output_map)
    message = "'peek' reads output 0 of 'blk/mul', which is fused into 'blk' without an output index map"
    with pytest.raises(ParseError, match=message):
        run(block(), name)


def test_registration_checks_the_class_and_duplicate_names() -> None:
    with pytest.raises(RegistrationError, match="ScopeBasePass subclass"):
        register_scope_fusion_pass(int)  # type: ignore[type-var]  # deliberately wrong: checks the runtime error

    class Nameless(ScopeBasePass):
        def define_patterns(self) -> PatternGroups:
            return []

        def last_match_scopes_and_ops(self, scope_graph: ScopeGraph, results: list[ScopesResult]) -> None:
            return None

        def generate_fusion_result(self, scopes: list[Scope], result: FusionScopesResult) -> None:
            return None

    with pytest.raises(RegistrationError, match="needs a non-empty str `pass_name`"):
        register_scope_fusion_pass(Nameless)

    class Partial(ScopeBasePass):
        pass_name = unique_name("Partial")

        def define_patterns(self) -> PatternGroups:
            return []

    with pytest.raises(RegistrationError, match="does not implement generate_fusion_result"):
        register_scope_fusion_pass(Partial)

    name = unique_name("Twice")
    first = make_pass(name, blk_pattern, fuse_block)
    with pytest.raises(RegistrationError, match="already registered; pass override=True"):
        register_scope_fusion_pass(first)
    register_scope_fusion_pass(first, override=True)
    entries = [p for p in registered_scope_fusion_passes() if p.name == name]
    assert [(p.general, p.builtin) for p in entries] == [(False, False)]


def test_the_decorator_form_and_general_passes() -> None:
    @register_scope_fusion_pass(general=True)
    class GeneralProbe(ScopeBasePass):
        pass_name = unique_name("GeneralProbe")

        def define_patterns(self) -> PatternGroups:
            return [[[ScopePattern("probe").add_scope_feature(ScopeFeature("", -1, "only_in_this_test"))]]]

        def last_match_scopes_and_ops(self, scope_graph: ScopeGraph, results: list[ScopesResult]) -> bool:
            chosen = ScopesResult()
            chosen.set_scopes([s for s in scope_graph.scope_tree.all_scopes() if s.sub_type == "probe"])
            results.append(chosen)
            return True

        def generate_fusion_result(self, scopes: list[Scope], result: FusionScopesResult) -> None:
            result.set_name("probe")
            result.set_type("Probe")
            result.insert_inputs("r", [0])

    graph = [op("x", "Placeholder"), op("only_in_this_test/r", "Relu", "x")]
    ops, records = run(graph)
    assert ops["probe"] == ("Probe", ["x:0"], ["only_in_this_test/r"]), "general: runs unasked"
    assert records[0][0] == GeneralProbe.pass_name
    names = [p.name for p in registered_scope_fusion_passes()]
    assert names[:2] == ["ScopeLayerNormPass", "ScopeBatchNormInferencePass"]
    assert names[-1] == GeneralProbe.pass_name


def test_enabling_an_unknown_pass_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no scope fusion pass named 'NoSuchPass' is registered"):
        run(block(), "NoSuchPass")


def test_a_user_pass_named_like_a_builtin_replaces_it() -> None:
    # In a fresh interpreter: the replacement is process-wide.
    script = textwrap.dedent(
        """
        from opgraph import _core
        from opgraph.tensorflow.scope import (ScopeBasePass, ScopePattern, ScopesResult,
            register_scope_fusion_pass, registered_scope_fusion_passes)

        class Mine(ScopeBasePass):
            pass_name = "ScopeLayerNormPass"
            def define_patterns(self):
                return [[[ScopePattern("mine")]]]
            def last_match_scopes_and_ops(self, scope_graph, results):
                return False
            def generate_fusion_result(self, scopes, result):
                pass

        register_scope_fusion_pass(Mine, general=False)
        print([tuple(p) for p in registered_scope_fusion_passes()][:2])
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "[('ScopeLayerNormPass', False, False), ('ScopeBatchNormInferencePass', False, True)]"
    )
