; ixjit tiled kernel (copy whose source and destination have different
; unit-stride dims: a transpose). Tiles of @@TILE@@ x @@TILE@@ elements over the
; two innermost iteration dims; each call moves the tiles [begin, end).
; signature: @@SIGNATURE@@
define void @@@NAME@@(ptr %ptrs, ptr %offs, i64 %begin, i64 %end) nounwind {
entry:
@@SETUP@@
  br label %tile

tile:
  %tix = phi i64 [ %begin, %entry ], [ %tix.next, %tile.next ]
  %more = icmp slt i64 %tix, %end
  br i1 %more, label %tile.body, label %exit

tile.body:
@@TILE_SETUP@@
  br label %brow

brow:
  %b = phi i64 [ @@B0@@, %tile.body ], [ %b.next, %brow.next ]
@@BROW@@
  br label %acol

acol:
  %a = phi i64 [ @@A0@@, %brow ], [ %a.next, %acol ]
@@ACOL@@
  %a.next = add nuw nsw i64 %a, 1
  %acont = icmp slt i64 %a.next, @@AEND@@
  br i1 %acont, label %acol, label %brow.next

brow.next:
  %b.next = add nuw nsw i64 %b, 1
  %bcont = icmp slt i64 %b.next, @@BEND@@
  br i1 %bcont, label %brow, label %tile.next

tile.next:
  %tix.next = add nuw nsw i64 %tix, 1
  br label %tile

exit:
@@EXIT@@
  ret void
}

@@METADATA@@
