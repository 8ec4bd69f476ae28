import os

from hypothesis import settings

# Bounded property tests in the default run; `-m slow` runs use the "long" profile via HYPOTHESIS_PROFILE.
settings.register_profile("default", max_examples=60, deadline=None)
settings.register_profile("long", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
