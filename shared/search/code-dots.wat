;; Dot products of a query (16-bit integers) with byte codes (8-bit integers), sixteen dimensions an
;; instruction: the second look of the vector index (vector-sketch.ts), built into code-dots-wasm.ts
;; by `npm run build:wasm`. Memory: the caller's codes, slot by slot, then its query, slots and scores.
(module
  (memory (export "memory") 1)
  ;; For each of `count` slots (i32s at $slots): the dot product of the query (i16s at $query) with
  ;; the slot's codes (i8s at $codes + slot × $dim), as an i32 at $out. $dim is a multiple of 16.
  (func (export "dots") (param $query i32) (param $codes i32) (param $dim i32) (param $slots i32) (param $count i32) (param $out i32)
    (local $i i32) (local $at i32) (local $j i32) (local $acc v128) (local $v v128)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $at
          (i32.add (local.get $codes)
            (i32.mul (i32.load (i32.add (local.get $slots) (i32.shl (local.get $i) (i32.const 2)))) (local.get $dim))))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (block $row
          (loop $sixteen
            (br_if $row (i32.ge_u (local.get $j) (local.get $dim)))
            (local.set $v (v128.load (i32.add (local.get $at) (local.get $j))))
            (local.set $acc
              (i32x4.add (local.get $acc)
                (i32x4.dot_i16x8_s
                  (i16x8.extend_low_i8x16_s (local.get $v))
                  (v128.load (i32.add (local.get $query) (i32.shl (local.get $j) (i32.const 1)))))))
            (local.set $acc
              (i32x4.add (local.get $acc)
                (i32x4.dot_i16x8_s
                  (i16x8.extend_high_i8x16_s (local.get $v))
                  (v128.load offset=16 (i32.add (local.get $query) (i32.shl (local.get $j) (i32.const 1)))))))
            (local.set $j (i32.add (local.get $j) (i32.const 16)))
            (br $sixteen)))
        (i32.store
          (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))))
