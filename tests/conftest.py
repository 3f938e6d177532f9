import os
import sys

sys.path.insert(0, os.path.dirname(__file__))  # tests/reference.py

from hypothesis import settings  # noqa: E402

settings.register_profile("default", deadline=None, print_blob=True)
settings.register_profile("ci", deadline=None, print_blob=True, max_examples=300)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
