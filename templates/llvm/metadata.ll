; streaming stores, and the promise (checked before every launch) that the
; destination never aliases a source
!0 = !{i32 1}
!1 = distinct !{!1, !"ixjit"}
!2 = distinct !{!2, !1, !"ixjit.dst"}
!3 = distinct !{!3, !1, !"ixjit.src"}
!4 = !{!2}
!5 = !{!3}
