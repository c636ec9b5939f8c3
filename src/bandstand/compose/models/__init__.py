"""Pydantic models of the compose pipeline: what each stage produces and what
the pipeline state saves. One module per stage output (intent, harmony,
arrangement, parts, sound, quality; `reports`: the validation node's
`ValidationReport` and the output node's `SessionFiles`)."""
