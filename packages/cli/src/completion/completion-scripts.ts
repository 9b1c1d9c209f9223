/**
 * The completion scripts. Each is a thin adapter: it passes the words after `octet` and the index
 * of the one being typed to `octet __complete`, and turns the answer (a mode line, then
 * "word<TAB>description" lines) into the shell's own form; "files" and "dirs" hand over to the
 * shell's path completion. The logic lives in complete-words.ts, once.
 */

const BASH = `# octet completion for bash. Load it now:   source <(octet completion bash)
# or for every shell:   octet completion bash > ~/.local/share/bash-completion/completions/octet
_octet() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" out line
  out="$(octet __complete "$((COMP_CWORD - 1))" "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)" || return 0
  COMPREPLY=()
  case "\${out%%$'\\n'*}" in
    files)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      ;;
    dirs)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      ;;
    words)
      [[ "$out" == *$'\\n'* ]] || return 0
      while IFS= read -r line; do
        [[ -n "$line" ]] && COMPREPLY+=("\${line%%$'\\t'*}")
      done <<< "\${out#*$'\\n'}"
      ;;
  esac
  return 0
}
complete -F _octet octet
`;

const ZSH = `#compdef octet
# octet completion for zsh. Load it now (after compinit):   source <(octet completion zsh)
# or for every shell:   octet completion zsh > "\${fpath[1]}/_octet"
_octet() {
  local -a lines items
  local line word desc
  lines=("\${(@f)$(octet __complete $((CURRENT - 2)) "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  case "$lines[1]" in
    files) _files ;;
    dirs) _files -/ ;;
    words)
      for line in "\${(@)lines[2,-1]}"; do
        [[ -z "$line" ]] && continue
        word="\${line%%$'\\t'*}"
        desc=""
        [[ "$line" == *$'\\t'* ]] && desc="\${line#*$'\\t'}"
        items+=("\${word//:/\\\\:}\${desc:+:$desc}")
      done
      (( \${#items} )) && _describe -t octet octet items
      ;;
  esac
  return 0
}
if [[ "$funcstack[1]" == _octet ]]; then
  _octet "$@"
else
  compdef _octet octet
fi
`;

const FISH = `# octet completion for fish. Load it now:   octet completion fish | source
# or for every shell:   octet completion fish > ~/.config/fish/completions/octet.fish
function __octet_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l out (octet __complete (math (count $tokens) - 1) $tokens[2..-1] $current 2>/dev/null)
    or return
    switch "$out[1]"
        case files
            __fish_complete_path $current
        case dirs
            __fish_complete_directories $current
        case words
            set -e out[1]
            printf '%s\\n' $out
    end
end
complete -c octet -f -a '(__octet_complete)'
`;

export const COMPLETION_SCRIPTS: Readonly<Record<string, string>> = { bash: BASH, zsh: ZSH, fish: FISH };
