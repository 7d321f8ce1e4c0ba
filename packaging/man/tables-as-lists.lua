-- pandoc filter for svc.conf(5): a table of docs/configuration.md becomes a
-- definition list (term: the row's first cell, then the other cells of the
-- row labelled with their column names), because a man page's tables wider
-- than the terminal make groff warn and read badly in `man`.
function Table(tbl)
  local heads = {}
  if tbl.head and tbl.head.rows[1] then
    for i, cell in ipairs(tbl.head.rows[1].cells) do
      heads[i] = pandoc.utils.stringify(cell.contents)
    end
  end
  local items = {}
  for _, body in ipairs(tbl.bodies) do
    for _, row in ipairs(body.body) do
      local term = pandoc.utils.blocks_to_inlines(row.cells[1].contents)
      local defs = {}
      for i = 2, #row.cells do
        local inlines = pandoc.utils.blocks_to_inlines(row.cells[i].contents)
        if heads[i] and heads[i] ~= "" and heads[i] ~= "meaning" then
          table.insert(inlines, 1, pandoc.Str(heads[i] .. ": "))
        end
        table.insert(defs, pandoc.Para(inlines))
      end
      table.insert(items, {term, {defs}})
    end
  end
  return pandoc.DefinitionList(items)
end
