; streaming stores, and the promise (checked before every launch) that the
; destination never aliases a source, and loops left rolled; the ids come
; from gen/emit_llvm.c
!@@MD_NONTEMPORAL@@ = !{i32 1}
!@@MD_DOMAIN@@ = distinct !{!@@MD_DOMAIN@@, !"ixjit"}
!@@MD_DST_SCOPE@@ = distinct !{!@@MD_DST_SCOPE@@, !@@MD_DOMAIN@@, !"ixjit.dst"}
!@@MD_SRC_SCOPE@@ = distinct !{!@@MD_SRC_SCOPE@@, !@@MD_DOMAIN@@, !"ixjit.src"}
!@@MD_DST_LIST@@ = !{!@@MD_DST_SCOPE@@}
!@@MD_SRC_LIST@@ = !{!@@MD_SRC_SCOPE@@}
!@@MD_NO_UNROLL@@ = !{!"llvm.loop.unroll.disable"}
!@@MD_SEGMENTS@@ = distinct !{!@@MD_SEGMENTS@@, !@@MD_NO_UNROLL@@}
!@@MD_BLOCK_COLS@@ = distinct !{!@@MD_BLOCK_COLS@@, !@@MD_NO_UNROLL@@}
