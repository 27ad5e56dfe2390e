"""Built-in person annotators: models with the ``person_annotator`` capability."""
