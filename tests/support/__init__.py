"""What several test files share, apart from fixtures (``tests/conftest.py``): no test
file imports another.

Their assertions are rewritten as a test file's are, so a failing one says what it
compared, not a bare ``AssertionError``."""

import pkgutil

import pytest

pytest.register_assert_rewrite(
    *(f"support.{module.name}" for module in pkgutil.iter_modules(__path__))
)
