package statement

// RunPipelined exposes runPipelined to the package's tests.
var RunPipelined = runPipelined
