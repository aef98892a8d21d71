package hook

// MayNameCommand is mayNameCommand, for the tests of package hook_test,
// which can import the binaries' own commands.
var MayNameCommand = mayNameCommand
