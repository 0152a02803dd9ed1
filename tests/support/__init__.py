"""What several test files share, apart from fixtures (``tests/conftest.py``): no test
file imports another."""
