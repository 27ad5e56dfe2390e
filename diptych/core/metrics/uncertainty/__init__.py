"""How a figure's uncertainty is made, from bootstrap to precision before purchase."""
