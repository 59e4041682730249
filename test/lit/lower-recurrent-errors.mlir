// gdr-lower-recurrent needs a schedule.
// RUN: gdr-opt %s -gdr-lower-recurrent -verify-diagnostics

// expected-error @+1 {{'gdr.kernel' op has no schedule: run gdr-attach-schedule first}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32, route = recurrent>
