_git__ucg() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="git__ucg"
                ;;
            git__ucg,baseline)
                cmd="git__ucg__subcmd__baseline"
                ;;
            git__ucg,budget)
                cmd="git__ucg__subcmd__budget"
                ;;
            git__ucg,config)
                cmd="git__ucg__subcmd__config"
                ;;
            git__ucg,demo)
                cmd="git__ucg__subcmd__demo"
                ;;
            git__ucg,diff)
                cmd="git__ucg__subcmd__diff"
                ;;
            git__ucg,epic)
                cmd="git__ucg__subcmd__epic"
                ;;
            git__ucg,gate)
                cmd="git__ucg__subcmd__gate"
                ;;
            git__ucg,goal)
                cmd="git__ucg__subcmd__goal"
                ;;
            git__ucg,help)
                cmd="git__ucg__subcmd__help"
                ;;
            git__ucg,hooks)
                cmd="git__ucg__subcmd__hooks"
                ;;
            git__ucg,id)
                cmd="git__ucg__subcmd__id"
                ;;
            git__ucg,install-docs)
                cmd="git__ucg__subcmd__install__subcmd__docs"
                ;;
            git__ucg,lesson)
                cmd="git__ucg__subcmd__lesson"
                ;;
            git__ucg,merge-file)
                cmd="git__ucg__subcmd__merge__subcmd__file"
                ;;
            git__ucg,notify)
                cmd="git__ucg__subcmd__notify"
                ;;
            git__ucg,pending)
                cmd="git__ucg__subcmd__pending"
                ;;
            git__ucg,reds)
                cmd="git__ucg__subcmd__reds"
                ;;
            git__ucg,resolve)
                cmd="git__ucg__subcmd__resolve"
                ;;
            git__ucg,resume)
                cmd="git__ucg__subcmd__resume"
                ;;
            git__ucg,runs)
                cmd="git__ucg__subcmd__runs"
                ;;
            git__ucg,sdlc)
                cmd="git__ucg__subcmd__sdlc"
                ;;
            git__ucg,status)
                cmd="git__ucg__subcmd__status"
                ;;
            git__ucg__subcmd__baseline,check)
                cmd="git__ucg__subcmd__baseline__subcmd__check"
                ;;
            git__ucg__subcmd__baseline,end)
                cmd="git__ucg__subcmd__baseline__subcmd__end"
                ;;
            git__ucg__subcmd__baseline,show)
                cmd="git__ucg__subcmd__baseline__subcmd__show"
                ;;
            git__ucg__subcmd__baseline,start)
                cmd="git__ucg__subcmd__baseline__subcmd__start"
                ;;
            git__ucg__subcmd__budget,reset)
                cmd="git__ucg__subcmd__budget__subcmd__reset"
                ;;
            git__ucg__subcmd__budget,show)
                cmd="git__ucg__subcmd__budget__subcmd__show"
                ;;
            git__ucg__subcmd__budget,tick)
                cmd="git__ucg__subcmd__budget__subcmd__tick"
                ;;
            git__ucg__subcmd__goal,add-story)
                cmd="git__ucg__subcmd__goal__subcmd__add__subcmd__story"
                ;;
            git__ucg__subcmd__goal,adopt)
                cmd="git__ucg__subcmd__goal__subcmd__adopt"
                ;;
            git__ucg__subcmd__goal,approve-review-dispatch-renewal)
                cmd="git__ucg__subcmd__goal__subcmd__approve__subcmd__review__subcmd__dispatch__subcmd__renewal"
                ;;
            git__ucg__subcmd__goal,claim-review-dispatch)
                cmd="git__ucg__subcmd__goal__subcmd__claim__subcmd__review__subcmd__dispatch"
                ;;
            git__ucg__subcmd__goal,confirm-all-stories)
                cmd="git__ucg__subcmd__goal__subcmd__confirm__subcmd__all__subcmd__stories"
                ;;
            git__ucg__subcmd__goal,confirm-story)
                cmd="git__ucg__subcmd__goal__subcmd__confirm__subcmd__story"
                ;;
            git__ucg__subcmd__goal,current)
                cmd="git__ucg__subcmd__goal__subcmd__current"
                ;;
            git__ucg__subcmd__goal,diff)
                cmd="git__ucg__subcmd__goal__subcmd__diff"
                ;;
            git__ucg__subcmd__goal,dismiss-review-finding)
                cmd="git__ucg__subcmd__goal__subcmd__dismiss__subcmd__review__subcmd__finding"
                ;;
            git__ucg__subcmd__goal,gc)
                cmd="git__ucg__subcmd__goal__subcmd__gc"
                ;;
            git__ucg__subcmd__goal,get)
                cmd="git__ucg__subcmd__goal__subcmd__get"
                ;;
            git__ucg__subcmd__goal,list-others)
                cmd="git__ucg__subcmd__goal__subcmd__list__subcmd__others"
                ;;
            git__ucg__subcmd__goal,reorder-stories)
                cmd="git__ucg__subcmd__goal__subcmd__reorder__subcmd__stories"
                ;;
            git__ucg__subcmd__goal,request-complete)
                cmd="git__ucg__subcmd__goal__subcmd__request__subcmd__complete"
                ;;
            git__ucg__subcmd__goal,resume-pursuit)
                cmd="git__ucg__subcmd__goal__subcmd__resume__subcmd__pursuit"
                ;;
            git__ucg__subcmd__goal,retire-story)
                cmd="git__ucg__subcmd__goal__subcmd__retire__subcmd__story"
                ;;
            git__ucg__subcmd__goal,revise-story)
                cmd="git__ucg__subcmd__goal__subcmd__revise__subcmd__story"
                ;;
            git__ucg__subcmd__goal,serialize-requirements)
                cmd="git__ucg__subcmd__goal__subcmd__serialize__subcmd__requirements"
                ;;
            git__ucg__subcmd__goal,serialize-review-context)
                cmd="git__ucg__subcmd__goal__subcmd__serialize__subcmd__review__subcmd__context"
                ;;
            git__ucg__subcmd__goal,set)
                cmd="git__ucg__subcmd__goal__subcmd__set"
                ;;
            git__ucg__subcmd__goal,set-blocked)
                cmd="git__ucg__subcmd__goal__subcmd__set__subcmd__blocked"
                ;;
            git__ucg__subcmd__goal,set-budget-limited)
                cmd="git__ucg__subcmd__goal__subcmd__set__subcmd__budget__subcmd__limited"
                ;;
            git__ucg__subcmd__goal,set-stories)
                cmd="git__ucg__subcmd__goal__subcmd__set__subcmd__stories"
                ;;
            git__ucg__subcmd__goal,set-verdict)
                cmd="git__ucg__subcmd__goal__subcmd__set__subcmd__verdict"
                ;;
            git__ucg__subcmd__goal,show)
                cmd="git__ucg__subcmd__goal__subcmd__show"
                ;;
            git__ucg__subcmd__goal,split-story)
                cmd="git__ucg__subcmd__goal__subcmd__split__subcmd__story"
                ;;
            git__ucg__subcmd__goal,status)
                cmd="git__ucg__subcmd__goal__subcmd__status"
                ;;
            git__ucg__subcmd__goal,stop-hook)
                cmd="git__ucg__subcmd__goal__subcmd__stop__subcmd__hook"
                ;;
            git__ucg__subcmd__hooks,install)
                cmd="git__ucg__subcmd__hooks__subcmd__install"
                ;;
            git__ucg__subcmd__hooks,status)
                cmd="git__ucg__subcmd__hooks__subcmd__status"
                ;;
            git__ucg__subcmd__hooks,uninstall)
                cmd="git__ucg__subcmd__hooks__subcmd__uninstall"
                ;;
            git__ucg__subcmd__id,mint)
                cmd="git__ucg__subcmd__id__subcmd__mint"
                ;;
            git__ucg__subcmd__lesson,append)
                cmd="git__ucg__subcmd__lesson__subcmd__append"
                ;;
            git__ucg__subcmd__lesson,audit)
                cmd="git__ucg__subcmd__lesson__subcmd__audit"
                ;;
            git__ucg__subcmd__lesson,escalated)
                cmd="git__ucg__subcmd__lesson__subcmd__escalated"
                ;;
            git__ucg__subcmd__lesson,invalidate)
                cmd="git__ucg__subcmd__lesson__subcmd__invalidate"
                ;;
            git__ucg__subcmd__lesson,query)
                cmd="git__ucg__subcmd__lesson__subcmd__query"
                ;;
            git__ucg__subcmd__lesson,reset)
                cmd="git__ucg__subcmd__lesson__subcmd__reset"
                ;;
            git__ucg__subcmd__lesson,retro)
                cmd="git__ucg__subcmd__lesson__subcmd__retro"
                ;;
            git__ucg__subcmd__reds,apply)
                cmd="git__ucg__subcmd__reds__subcmd__apply"
                ;;
            git__ucg__subcmd__sdlc,list)
                cmd="git__ucg__subcmd__sdlc__subcmd__list"
                ;;
            git__ucg__subcmd__sdlc,reconcile)
                cmd="git__ucg__subcmd__sdlc__subcmd__reconcile"
                ;;
            git__ucg__subcmd__sdlc,repair)
                cmd="git__ucg__subcmd__sdlc__subcmd__repair"
                ;;
            git__ucg__subcmd__sdlc,resume)
                cmd="git__ucg__subcmd__sdlc__subcmd__resume"
                ;;
            git__ucg__subcmd__sdlc,show)
                cmd="git__ucg__subcmd__sdlc__subcmd__show"
                ;;
            git__ucg__subcmd__sdlc,status)
                cmd="git__ucg__subcmd__sdlc__subcmd__status"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        git__ucg)
            opts="-C -h -V --color --no-pager --help --version config status runs pending resolve resume gate notify hooks baseline goal sdlc lesson budget epic diff id reds merge-file demo install-docs help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                -C)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__baseline)
            opts="-h -V --color --no-pager --help --version start end check show"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__baseline__subcmd__check)
            opts="-h -V --impl-artifacts --color --no-pager --help --version $(git-ucg __complete stories 2>/dev/null)"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__baseline__subcmd__end)
            opts="-h -V --impl-artifacts --color --no-pager --help --version $(git-ucg __complete stories 2>/dev/null)"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__baseline__subcmd__show)
            opts="-h -V --json --impl-artifacts --color --no-pager --help --version $(git-ucg __complete stories 2>/dev/null)"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__baseline__subcmd__start)
            opts="-h -V --impl-artifacts --color --no-pager --help --version $(git-ucg __complete stories 2>/dev/null)"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__budget)
            opts="-h -V --color --no-pager --help --version tick show reset"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__budget__subcmd__reset)
            opts="-h -V --impl-artifacts --color --no-pager --help --version $(git-ucg __complete stories 2>/dev/null)"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__budget__subcmd__show)
            opts="-h -V --json --impl-artifacts --color --no-pager --help --version $(git-ucg __complete stories 2>/dev/null)"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__budget__subcmd__tick)
            opts="-h -V --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__config)
            opts="-h -V --json --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__demo)
            opts="-h -V --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__diff)
            opts="-p -M -h -V --story --epic --range --epic-id --impl-artifacts --stat --name-status --numstat --patch --json --find-renames --no-renames --no-cache --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --story)
                    COMPREPLY=($(compgen -W "$(git-ucg __complete stories 2>/dev/null)" -- "${cur}"))
                    return 0
                    ;;
                --epic)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --range)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --epic-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__epic)
            opts="-h -V --json --epic --fast --no-cache --rev --impl-artifacts --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --epic)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rev)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__gate)
            opts="-h -V --rev --full --format --json --impl-artifacts --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --rev)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "text json github junit" -- "${cur}"))
                    return 0
                    ;;
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal)
            opts="-h -V --session --omt-dir --color --no-pager --help --version set set-verdict request-complete set-budget-limited set-blocked resume-pursuit set-stories confirm-story confirm-all-stories reorder-stories add-story revise-story retire-story split-story get status serialize-requirements serialize-review-context list-others adopt claim-review-dispatch approve-review-dispatch-renewal dismiss-review-finding current show gc stop-hook diff"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__add__subcmd__story)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__adopt)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__approve__subcmd__review__subcmd__dispatch__subcmd__renewal)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__claim__subcmd__review__subcmd__dispatch)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__confirm__subcmd__all__subcmd__stories)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__confirm__subcmd__story)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__current)
            opts="-h -V --json --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__diff)
            opts="-p -M -h -V --base --stat --name-status --numstat --patch --json --find-renames --no-renames --no-cache --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__dismiss__subcmd__review__subcmd__finding)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__gc)
            opts="-n -h -V --dry-run --json --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__get)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__list__subcmd__others)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__reorder__subcmd__stories)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__request__subcmd__complete)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__resume__subcmd__pursuit)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__retire__subcmd__story)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__revise__subcmd__story)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__serialize__subcmd__requirements)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__serialize__subcmd__review__subcmd__context)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__set)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__set__subcmd__blocked)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__set__subcmd__budget__subcmd__limited)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__set__subcmd__stories)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__set__subcmd__verdict)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__show)
            opts="-h -V --json --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__split__subcmd__story)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__status)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__goal__subcmd__stop__subcmd__hook)
            opts="-h -V --session --omt-dir --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --omt-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__help)
            opts="-h -V --color --no-pager --help --version config status runs pending resolve resume gate notify hooks baseline goal sdlc lesson budget epic diff id reds merge-file demo install-docs"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__hooks)
            opts="-h -V --color --no-pager --help --version install uninstall status"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__hooks__subcmd__install)
            opts="-h -V --only --server --strict --agent --all-commits --merge-driver --force --hooks-path-ok --script --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --only)
                    COMPREPLY=($(compgen -W "pre-commit pre-push pre-merge-commit pre-applypatch pre-rebase post-commit post-merge prepare-commit-msg reference-transaction pre-receive" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__hooks__subcmd__status)
            opts="-h -V --json --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__hooks__subcmd__uninstall)
            opts="-h -V --only --agent --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --only)
                    COMPREPLY=($(compgen -W "pre-commit pre-push pre-merge-commit pre-applypatch pre-rebase post-commit post-merge prepare-commit-msg reference-transaction pre-receive" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__id)
            opts="-h -V --color --no-pager --help --version mint"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__id__subcmd__mint)
            opts="-h -V --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__install__subcmd__docs)
            opts="-h -V --prefix --dry-run --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --prefix)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__lesson)
            opts="-h -V --ledger --color --no-pager --help --version append query audit invalidate retro reset escalated"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --ledger)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__lesson__subcmd__append)
            opts="-h -V --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__lesson__subcmd__audit)
            opts="-h -V --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__lesson__subcmd__escalated)
            opts="-h -V --state --ledger --json --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ledger)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__lesson__subcmd__invalidate)
            opts="-h -V --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__lesson__subcmd__query)
            opts="-h -V --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__lesson__subcmd__reset)
            opts="-h -V --ledger --task --state --contract --gap --evidence --remediation --verify-result --court-result --criterion --pattern --json --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --ledger)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --task)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --contract)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gap)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --evidence)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --remediation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --verify-result)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --court-result)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --criterion)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pattern)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__lesson__subcmd__retro)
            opts="-h -V --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__merge__subcmd__file)
            opts="-h -V --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__notify)
            opts="-h -V --exec --watch --rev --impl-artifacts --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --exec)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rev)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__pending)
            opts="-h -V --json --full --exit-code --mine --for --rev --impl-artifacts --deferred-work --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --for)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rev)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --deferred-work)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__reds)
            opts="-h -V --color --no-pager --help --version apply"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__reds__subcmd__apply)
            opts="-h -V --impl-artifacts --scan --from-sidecar --dry-run --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scan)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__resolve)
            opts="-h -V --close --defer --answer --answers --dry-run --json --full --interactive --mine --reuse-similar --run --branch --push --message --impl-artifacts --deferred-work --runs-root --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --close)
                    COMPREPLY=($(compgen -W "$(git-ucg __complete pending 2>/dev/null)" -- "${cur}"))
                    return 0
                    ;;
                --defer)
                    COMPREPLY=($(compgen -W "$(git-ucg __complete pending 2>/dev/null)" -- "${cur}"))
                    return 0
                    ;;
                --answer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --answers)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --run)
                    COMPREPLY=($(compgen -W "$(git-ucg __complete runs 2>/dev/null)" -- "${cur}"))
                    return 0
                    ;;
                --branch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --push)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --message)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --deferred-work)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runs-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__resume)
            opts="-h -V --json --epic --impl-artifacts --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --epic)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__runs)
            opts="-h -V --json --runs-root --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runs-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__sdlc)
            opts="-h -V --color --no-pager --help --version list status show repair reconcile resume"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__sdlc__subcmd__list)
            opts="-h -V --by-mtime --runs-dir --json --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runs-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__sdlc__subcmd__reconcile)
            opts="-y -h -V --yes --runs-dir --json --color --no-pager --help --version $(git-ucg __complete sdlc-runs 2>/dev/null)"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runs-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__sdlc__subcmd__repair)
            opts="-y -h -V --yes --runs-dir --json --color --no-pager --help --version $(git-ucg __complete sdlc-runs 2>/dev/null)"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runs-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__sdlc__subcmd__resume)
            opts="-y -h -V --yes --allow-failed --runs-dir --json --color --no-pager --help --version $(git-ucg __complete sdlc-runs 2>/dev/null)"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runs-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__sdlc__subcmd__show)
            opts="-h -V --runs-dir --json --color --no-pager --help --version $(git-ucg __complete sdlc-runs 2>/dev/null)"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runs-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__sdlc__subcmd__status)
            opts="-h -V --runs-dir --json --color --no-pager --help --version $(git-ucg __complete sdlc-runs 2>/dev/null)"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runs-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        git__ucg__subcmd__status)
            opts="-h -V --format --json --prompt --watch --exec --fast --no-cache --full --impl-artifacts --run-dir --runs-root --deferred-work --rev --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --format)
                    COMPREPLY=($(compgen -W "human json markdown" -- "${cur}"))
                    return 0
                    ;;
                --exec)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --impl-artifacts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --run-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runs-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --deferred-work)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rev)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _git__ucg -o nosort -o bashdefault -o default git-ucg
else
    complete -F _git__ucg -o bashdefault -o default git-ucg
fi

# Options only once a `-` is typed, as git completes: `git ucg <TAB>` lists the commands. When a
# command takes nothing but options, they are offered all the same.
_git_ucg_complete() {
    _git__ucg "$@"
    if [[ "$2" != -* ]]; then
        local kept=() word
        for word in "${COMPREPLY[@]}"; do
            [[ $word == -* ]] || kept+=("$word")
        done
        [[ ${#kept[@]} -gt 0 ]] && COMPREPLY=("${kept[@]}")
    fi
    return 0
}
if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _git_ucg_complete -o nosort -o bashdefault -o default git-ucg
else
    complete -F _git_ucg_complete -o bashdefault -o default git-ucg
fi

# `git ucg <TAB>`: git's completion (git-completion.bash) calls _git_<subcommand>.
_git_ucg() {
    local COMP_WORDS=(git-ucg "${words[@]:2}")
    local COMP_CWORD=$((cword - 1))
    local COMP_LINE="${COMP_WORDS[*]}"
    local COMP_POINT=${#COMP_LINE}
    _git_ucg_complete git-ucg "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
}
