let a = 1
let b = a
++b
const c = a
(function () {})
const d = [1, 2]
[0]
return a
  + b
