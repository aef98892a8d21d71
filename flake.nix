{
  description = "hookwire: tiny fail-open hooks that tell desktop status surfaces what coding agents do";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  # nix build                    every binary, in result/bin
  # nix run .#pulse-claude -- doctor
  # nix profile install github:hookwire/hookwire
  outputs =
    { self, nixpkgs }:
    let
      systems = [
        "x86_64-linux"
        "aarch64-linux"
        "x86_64-darwin"
        "aarch64-darwin"
      ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
      binaries = [
        "pulse-emit"
        "pulse-claude"
        "nb-hook"
        "trailboss-hook"
        "vpet-notify"
        "coral-pulse"
        "hookwire"
      ];
      version = "0-unstable-${self.shortRev or self.dirtyShortRev or "dev"}";

      mkHookwire =
        pkgs:
        # go.mod asks for Go 1.26.
        (pkgs.buildGoModule.override { go = pkgs.go_1_26 or pkgs.go; }) {
          pname = "hookwire";
          inherit version;
          src = self;

          # The NAR hash of `go mod vendor`'s output. When go.mod or go.sum
          # change, TestFlakeVendorHash (flake_test.go) fails and prints the
          # new one; nix build with lib.fakeHash here reports the same. The
          # development tools (GoReleaser, staticcheck) are a module of their
          # own, tools/go.mod, which the vendor directory leaves out.
          vendorHash = "sha256-GQHfLHmy0bhPrBbXVk4ig4IrRcAHVQea+9yThFeMMeE=";

          subPackages = map (b: "cmd/${b}") binaries;
          env.CGO_ENABLED = 0;
          ldflags = [
            "-s"
            "-w"
            "-X github.com/hookwire/hookwire/internal/hook.Version=${version}"
          ];

          meta = {
            description = "Tiny fail-open hooks that tell desktop status surfaces what coding agents do";
            homepage = "https://github.com/hookwire/hookwire";
            license = nixpkgs.lib.licenses.mit;
            mainProgram = "pulse-claude";
            platforms = nixpkgs.lib.platforms.linux ++ nixpkgs.lib.platforms.darwin;
          };
        };
    in
    {
      packages = forAllSystems (pkgs: {
        hookwire = mkHookwire pkgs;
        default = self.packages.${pkgs.stdenv.hostPlatform.system}.hookwire;
      });

      # nix run .#<binary> for each binary.
      apps = forAllSystems (
        pkgs:
        nixpkgs.lib.genAttrs binaries (b: {
          type = "app";
          program = "${self.packages.${pkgs.stdenv.hostPlatform.system}.hookwire}/bin/${b}";
          meta.description = "hookwire's ${b}";
        })
        // {
          default = self.apps.${pkgs.stdenv.hostPlatform.system}.pulse-claude;
        }
      );
    };
}
