package planner

// ClaimAt is claimAt, for the package's tests.
var ClaimAt = claimAt
