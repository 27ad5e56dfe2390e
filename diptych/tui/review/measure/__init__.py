"""The measurement mode of Review: the screen that labels a random draw and its panel of
figures."""
