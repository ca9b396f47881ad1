; axolotl: pad_to_sequence_len: true pads every batch to sequence_len. With
; sample_packing the packed rows fill that length anyway (axolotl recommends the
; pair), so only padding without packing is reported.
((block_mapping_pair
  key: (flow_node) @kw) @arg @report
  (#eq? @kw "pad_to_sequence_len")
  (#oom-yaml-kind? @report "axolotl")
  (#oom-yaml-key? @report "pad_to_sequence_len")
  (#oom-yaml-value? @report "true")
  (#not-oom-yaml-true? @report "sample_packing"))
