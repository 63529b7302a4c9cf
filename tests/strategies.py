"""Hypothesis strategies and named functions for the RDD property tests.

Data: small lists (so a property runs hundreds of jobs in seconds), keys from small
ranges (so keys collide and combiners really merge), strings with non-ASCII
characters (so hashing and file I/O see multi-byte UTF-8).

Functions: properties draw user functions from small sets of *named* module-level
functions with ``st.sampled_from``; a failing example then prints a readable name, and
the functions pickle by reference into worker processes.

Running a property on every master: :func:`rdd_property` turns a body
``body(ctx, [other fixtures], **drawn)`` into a pytest test that takes the
module-scoped ``ctx`` fixture (``local`` and ``local[2]``) and runs the body as a
Hypothesis property with the number of examples :data:`EXAMPLES` gives for that master
and profile. (``@settings`` cannot vary with a fixture's value, hence the wrapper.)
The ``ci`` profile is derandomized, so a failure reproduces by rerunning the test.
"""

from __future__ import annotations

import inspect
import operator
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

# ----------------------------------------------------------------- examples per master

#: Examples per property, by Hypothesis profile and master. ``local`` runs tasks
#: inline and is cheap; ``local[2]`` crosses process boundaries on every task, and ``ray``
#: (``make test-ray``) crosses Ray's object store too.
EXAMPLES: dict[str, dict[str, int]] = {
    "ci": {"local": 200, "local[2]": 20, "ray": 10},
    "dev": {"local": 50, "local[2]": 10, "ray": 5},
    "fast": {"local": 10, "local[2]": 3, "ray": 2},
}


def examples_for(master: str) -> int:
    profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    return EXAMPLES.get(profile, EXAMPLES["ci"])[master]


def rdd_property(**strategies: st.SearchStrategy[Any]) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Make ``body(ctx, [fixtures...], **drawn)`` a Hypothesis property run on every master.

    The returned function is the pytest test. Its parameters are the body's parameters
    that are not drawn: ``ctx`` (the module-scoped context fixture, ``local`` and
    ``local[2]``) and any other fixtures the body names (e.g. ``files``). It runs
    ``@given(**strategies)`` with ``max_examples`` chosen for ``ctx.master``, passing the
    fixture values through. The test keeps the body's name and docstring.
    """

    def decorate(body: Callable[..., None]) -> Callable[..., None]:
        fixture_params = [p for name, p in inspect.signature(body).parameters.items() if name not in strategies]
        fixture_names = [p.name for p in fixture_params]
        if not fixture_names or fixture_names[0] != "ctx":
            raise TypeError(f"{body.__name__}: the first parameter of an rdd_property body must be ctx")

        def test(**fixtures: Any) -> None:
            ctx = fixtures["ctx"]

            def run(**drawn: Any) -> None:
                body(**fixtures, **drawn)

            run.__name__ = run.__qualname__ = body.__name__
            settings(max_examples=examples_for(ctx.master))(given(**strategies)(run))()

        test.__signature__ = inspect.Signature(fixture_params)  # type: ignore[attr-defined]
        test.__name__ = test.__qualname__ = body.__name__
        test.__doc__ = body.__doc__
        test.__module__ = body.__module__
        return test

    return decorate


# ----------------------------------------------------------------- data

#: Partition counts the properties use.
partitions = st.integers(min_value=1, max_value=6)

small_ints = st.integers(min_value=-20, max_value=20)

#: Printable text including non-ASCII letters, with no line separators.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
texts = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters=LINE_BREAKS),
    max_size=6,
)
#: A few strings that collide often; multi-byte UTF-8 on purpose.
text_keys = st.sampled_from(["", "a", "b", "é", "ß", "ключ", "鍵", "🙂"])
int_keys = st.integers(min_value=0, max_value=6)
tuple_keys = st.tuples(st.integers(min_value=0, max_value=2), st.sampled_from(["x", "ÿ"]))

int_lists = st.lists(small_ints, max_size=30)
text_lists = st.lists(st.one_of(text_keys, texts), max_size=30)
#: Lists of one element type: sortable, hashable, orderable results.
element_lists = st.one_of(int_lists, text_lists)


def _pairs_of(keys: st.SearchStrategy[Any], values: st.SearchStrategy[Any] = small_ints
              ) -> st.SearchStrategy[list[tuple[Any, Any]]]:
    return st.lists(st.tuples(keys, values), max_size=30)


#: Key/value lists whose keys all have one type (so they can be sorted).
sortable_pairs = st.one_of(_pairs_of(int_keys), _pairs_of(text_keys), _pairs_of(tuple_keys))
#: Key/value lists whose keys mix types (only hashing and equality matter).
mixed_keys = st.one_of(int_keys, text_keys, tuple_keys, st.none())
pairs = st.one_of(sortable_pairs, _pairs_of(mixed_keys))

#: Numbers for numeric actions: integers and finite floats of moderate size.
finite_floats = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
number_lists = st.one_of(st.lists(small_ints, max_size=30), st.lists(finite_floats, max_size=30))

seeds = st.integers(min_value=0, max_value=2**31 - 1)


def slices(data: list[Any], num: int) -> list[list[Any]]:
    """PySpark's parallelize slicing: partition ``i`` holds ``data[i*n//num:(i+1)*n//num]``."""
    n = len(data)
    return [data[i * n // num:(i + 1) * n // num] for i in range(num)]


# ----------------------------------------------------------------- named functions


def identity(x: Any) -> Any:
    return x


def double(x: Any) -> Any:
    return 2 * x


def negate(x: int) -> int:
    return -x


def square(x: int) -> int:
    return x * x


def mod3(x: int) -> int:
    return x % 3


def last_digit(x: int) -> int:
    return abs(x) % 10


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def to_text(x: Any) -> str:
    return f"v{x}é"


def is_even(x: int) -> bool:
    return x % 2 == 0


def is_positive(x: int) -> bool:
    return x > 0


def always(x: Any) -> bool:
    return True


def never(x: Any) -> bool:
    return False


def repeat_by_mod3(x: int) -> list[int]:
    return [x] * (x % 3)


def digits(x: int) -> list[str]:
    return list(str(x))


def nothing(x: Any) -> list[Any]:
    return []


def pair_up(x: int) -> tuple[int, int]:
    return (x, x + 1)


def count_down(x: int) -> Iterator[int]:
    """A generator: flatMap must accept any iterable."""
    yield from range(abs(x) % 4)


def text_length(s: str) -> int:
    return len(s)


def first_char(s: str) -> str:
    return s[:1]


def shout(s: str) -> str:
    return s.upper() + "!"


def sum_partition(it: Iterable[int]) -> list[int]:
    return [sum(it)]


def count_partition(it: Iterable[Any]) -> list[int]:
    return [sum(1 for _ in it)]


def sorted_partition(it: Iterable[Any]) -> list[Any]:
    return sorted(it)


def evens_generator(it: Iterable[int]) -> Iterator[int]:
    for x in it:
        if x % 2 == 0:
            yield x


def first_two(it: Iterable[Any]) -> list[Any]:
    out = []
    for x in it:
        if len(out) == 2:
            break
        out.append(x)
    return out


def tag_with_index(index: int, it: Iterable[Any]) -> Iterator[tuple[int, Any]]:
    for x in it:
        yield (index, x)


def index_and_size(index: int, it: Iterable[Any]) -> list[tuple[int, int]]:
    return [(index, sum(1 for _ in it))]


#: Element functions on ints, by kind.
int_maps = st.sampled_from([identity, double, negate, square, mod3, to_text, pair_up])
int_flat_maps = st.sampled_from([repeat_by_mod3, digits, nothing, pair_up, count_down])
#: flatMap functions whose outputs are ints again (for chains of operators).
int_to_int_flat_maps = st.sampled_from([repeat_by_mod3, nothing, pair_up, count_down])
int_predicates = st.sampled_from([is_even, is_positive, always, never])
int_key_funcs = st.sampled_from([identity, negate, mod3, last_digit, sign])
text_maps = st.sampled_from([identity, text_length, first_char, shout])
int_partition_funcs = st.sampled_from([sum_partition, count_partition, sorted_partition,
                                       evens_generator, first_two])

#: Commutative and associative functions on ints (what reduceByKey/reduce require).
int_reducers = st.sampled_from([operator.add, max, min, operator.xor])


def append_value(acc: list[Any], value: Any) -> list[Any]:
    """Mutates its accumulator: aggregateByKey must give each key its own zero copy."""
    acc.append(value)
    return acc


def concat_lists(a: list[Any], b: list[Any]) -> list[Any]:
    """Builds a new list (the engine may recognise ``a + b`` and take a fast path)."""
    return a + b


def extend_list(a: list[Any], b: list[Any]) -> list[Any]:
    """Mutates and returns its first argument (allowed for mergeCombiners)."""
    a.extend(b)
    return a


def singleton(v: Any) -> list[Any]:
    return [v]


def add_to_sum_count(acc: tuple[int, int], value: int) -> tuple[int, int]:
    return (acc[0] + value, acc[1] + 1)


def merge_sum_count(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return (a[0] + b[0], a[1] + b[1])

#: mergeCombiners for list combiners: a pure one and one that mutates its first argument.
list_mergers = st.sampled_from([concat_lists, extend_list])
