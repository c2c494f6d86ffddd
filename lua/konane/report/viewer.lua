-- konane.report.viewer: the game viewer shared by the tournament report and annotated games.
--
-- The boards come from konane.svg: one template per board shape (every square's piece, ghost
-- and hint elements present and switched off). The page script knows the rules' bookkeeping
-- (which squares a move empties and fills) and nothing about drawing: for each ply it switches
-- pieces and ghosts on and off, sets the last-move arrow's points to the centres of the squares
-- it visits (read from the pieces' own x and y), and shows one of the status lines Lua drew.
-- It exposes the position text of the shown ply as data-fen on #viewer, checks each game's
-- replay against the final position the engine computed, and writes any script error into
-- #errors (data-count on it), which the browser tests read.

local svg = require "konane.svg"
local json = require "konane.tournament.json"

local M = {}

M.CSS = [[
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 "DejaVu Sans",Verdana,Arial,sans-serif;color:#222;background:#f4f1ea}
main{max-width:1180px;margin:0 auto;padding:18px 22px 40px}
h1{font-size:24px;margin:4px 0 2px}h2{font-size:18px;margin:26px 0 8px}
.sub{color:#555;margin:0 0 12px}
section{background:#fff;border:1px solid #ddd6c8;border-radius:8px;padding:12px 16px;margin:14px 0;
 box-shadow:0 1px 2px rgba(0,0,0,.05)}
section h2{margin-top:2px}
table{border-collapse:collapse}
th,td{padding:3px 9px;text-align:right;white-space:nowrap}
th{font-weight:600;color:#444;border-bottom:2px solid #ccc}
td.l,th.l{text-align:left}
td.l{white-space:normal;overflow-wrap:anywhere;min-width:9em}
section{overflow-x:auto}
tr.sep td{border-top:1px solid #eee}
.std td{border-bottom:1px solid #eee}
.heat td.c{min-width:62px;text-align:center;border:1px solid #fff;font-variant-numeric:tabular-nums}
.heat td.self{background:#eee}
.heat small{display:block;color:inherit;opacity:.8;font-size:11px}
.note{color:#666;font-size:13px}
.charts{display:flex;flex-wrap:wrap;gap:10px 26px}
.chart{max-width:100%;height:auto}
figure{margin:0}figcaption{max-width:600px}
#viewer{display:grid;grid-template-columns:minmax(260px,430px) 1fr;gap:18px;align-items:start}
#viewer .board svg{width:100%;height:auto;display:block}
#viewer .board svg[data-active="false"]{display:none}
.ctl{display:flex;gap:6px;align-items:center;margin:8px 0 4px;flex-wrap:wrap}
.ctl button{font:inherit;font-size:16px;min-width:40px;padding:3px 8px;border:1px solid #bbb;
 border-radius:5px;background:#fafafa;cursor:pointer}
.ctl button:hover{background:#eef}
.ctl input[type=range]{flex:1;min-width:120px}
#plylabel{min-width:84px;text-align:right;color:#444;font-variant-numeric:tabular-nums}
#ginfo{margin:0 0 8px}
#ginfo .players{font-weight:600;font-size:16px}
#ginfo .why{color:#7a3b00}
#moves{position:relative;line-height:1.9;max-height:420px;overflow:auto;border-top:1px solid #eee;padding-top:6px}
#moves .no{color:#888;margin:0 3px 0 8px}
#moves .mv{padding:1px 4px;border-radius:4px;cursor:pointer;white-space:nowrap}
#moves .mv:hover{background:#e8eefc}
#moves .mv.cur{background:#1565c0;color:#fff}
#moves .nag{font-weight:700;color:#b00020}
#moves .nag.good{color:#1b7a36}
#moves .ev{color:#777;font-size:12px;margin-left:2px}
#moves .mv.cur .ev,#moves .mv.cur .nag{color:#fff}
.filters{display:flex;gap:12px;flex-wrap:wrap;margin:0 0 8px}
.filters label{font-size:14px;color:#444}
.filters select{font:inherit;font-size:14px}
#glist{max-height:300px;overflow:auto;display:block;border:1px solid #eee}
#gmore{margin-top:6px;font:inherit;font-size:14px}
#glist tbody tr{cursor:pointer}
#glist tbody tr:hover{background:#eef3ff}
#glist tbody tr.cur{background:#dbe6fb}
#glist thead th{position:sticky;top:0;background:#fff}
#errors{color:#b00020;white-space:pre-wrap}
#errors:empty{display:none}
.evalgraph .col{cursor:pointer}.evalgraph svg{width:100%;height:auto;display:block;margin-top:6px}
@media (max-width:760px){#viewer{grid-template-columns:1fr}}
]]

-- The error trap goes first, in its own element, so even a syntax error in the main script
-- is reported on the page.
M.TRAP = [[
(function(){var n=0;function put(m){var e=document.getElementById('errors');n++;
if(e){e.textContent+=m+'\n';e.setAttribute('data-count',String(n));}}
window.addEventListener('error',function(ev){put('error: '+ev.message+' ('+(ev.filename||'')+':'+ev.lineno+')');});
window.addEventListener('unhandledrejection',function(ev){put('error: '+ev.reason);});
window.konaneError=put;})();
]]

M.JS = [==[
(function(){
'use strict';
var D=JSON.parse(document.getElementById('kn-data').textContent);
var V=document.getElementById('viewer');
var FILES='abcdefghijklmnopqrstuvwxyz';
var cur={gi:-1,ply:0,states:null};

// ---- the rules' bookkeeping: squares, moves (as konane.svg's path), position text
function parseSq(s){return [FILES.indexOf(s.charAt(0).toLowerCase()),parseInt(s.slice(1),10)-1];}
function sqName(f,r){return FILES.charAt(f)+(r+1);}
function path(m){
  var e=m.match(/[a-zA-Z][0-9]+/g);if(!e)return null;
  var a=parseSq(e[0]);if(e.length===1)return {squares:[sqName(a[0],a[1])],jumped:[]};
  var b=parseSq(e[e.length-1]),df=b[0]-a[0],dr=b[1]-a[1];
  var n=Math.max(Math.abs(df),Math.abs(dr))/2,sf=Math.sign(df),sr=Math.sign(dr);
  var sq=[sqName(a[0],a[1])],jp=[];
  for(var k=1;k<=n;k++){jp.push(sqName(a[0]+sf*(2*k-1),a[1]+sr*(2*k-1)));sq.push(sqName(a[0]+sf*2*k,a[1]+sr*2*k));}
  return {squares:sq,jumped:jp};
}
function parseFen(fen){
  var parts=fen.split(' '),ranks=parts[0].split('/'),rows=ranks.length,occ=[],cols=0;
  for(var i=0;i<rows;i++){var r=rows-1-i,f=0,t=ranks[i],j=0;
    while(j<t.length){var c=t.charAt(j);
      if(c>='0'&&c<='9'){var k=j;while(k<t.length&&t.charAt(k)>='0'&&t.charAt(k)<='9')k++;f+=parseInt(t.slice(j,k),10);j=k;continue;}
      occ[r*1000+f]=(c==='x'||c==='o')?1:0;f++;j++;}
    cols=f;}
  return {rows:rows,cols:cols,occ:occ,side:parts[1]==='w'?'white':'black'};
}
function copy(st){return {rows:st.rows,cols:st.cols,occ:st.occ.slice(),side:st.side};}
function at(st,s){var p=parseSq(s);return st.occ[p[1]*1000+p[0]]===1;}
function set(st,s,v){var p=parseSq(s);st.occ[p[1]*1000+p[0]]=v;}
function apply(st,m){
  var p=path(m),n=copy(st);if(!p)throw new Error('bad move '+m);
  if(p.squares.length===1)set(n,p.squares[0],0);
  else{set(n,p.squares[0],0);p.jumped.forEach(function(s){set(n,s,0);});set(n,p.squares[p.squares.length-1],1);}
  n.side=st.side==='black'?'white':'black';return n;
}
function fenOf(st){
  var out=[];
  for(var r=st.rows-1;r>=0;r--){var line='',e=0;
    for(var f=0;f<st.cols;f++){
      if(st.occ[r*1000+f]===1){if(e){line+=e;e=0;}line+=((f+r)%2===0)?'o':'x';}else e++;}
    if(e)line+=e;out.push(line);}
  return out.join('/')+' '+(st.side==='black'?'b':'w');
}
function states(g){
  var st=[parseFen(D.starts[g.s||0])],mv=g.m?g.m.split(' '):[];
  for(var i=0;i<mv.length;i++)st.push(apply(st[i],mv[i]));
  if(g.f&&fenOf(st[st.length-1])!==g.f)window.konaneError('game '+g.n+': the replay ends in '+fenOf(st[st.length-1])+', the record in '+g.f);
  return st;
}

// ---- drawing: switch the template's elements
var boards={};
function board(key){
  if(boards[key])return boards[key];
  var el=V.querySelector('svg[data-board="'+key+'"]'),b={el:el,piece:{},ghost:{},last:el.querySelector('.last'),status:{}};
  el.querySelectorAll('use.piece').forEach(function(u){b.piece[u.getAttribute('data-sq')]=u;});
  el.querySelectorAll('use.ghost').forEach(function(u){b.ghost[u.getAttribute('data-sq')]=u;});
  el.querySelectorAll('g.status').forEach(function(s){b.status[s.getAttribute('data-status')]=s;});
  boards[key]=b;return b;
}
function show(el,on){if(on)el.removeAttribute('display');else el.setAttribute('display','none');}
function draw(g,ply){
  var b=board(D.boards[g.k||0]),st=cur.states[ply],mv=g.m?g.m.split(' '):[];
  V.querySelectorAll('.board svg').forEach(function(s){s.setAttribute('data-active',String(s===b.el));});
  Object.keys(b.piece).forEach(function(s){show(b.piece[s],at(st,s));});
  Object.keys(b.ghost).forEach(function(s){show(b.ghost[s],false);});
  var last=ply>0?path(mv[ply-1]):null;
  if(last&&last.squares.length>1){
    b.last.setAttribute('points',last.squares.map(function(s){var u=b.piece[s];return u.getAttribute('x')+','+u.getAttribute('y');}).join(' '));
    show(b.last,true);
  }else{b.last.setAttribute('points','');show(b.last,false);}
  if(last){(last.squares.length===1?last.squares:last.jumped).forEach(function(s){show(b.ghost[s],true);});}
  var over=ply===mv.length&&g.t==='normal'&&g.r!=='*';
  var kind=over?'won-'+(st.side==='black'?'white':'black'):'turn-'+st.side;
  Object.keys(b.status).forEach(function(k){show(b.status[k],k===kind);});
  b.el.setAttribute('data-fen',fenOf(st));
}

// ---- the page: move list, controls, hash
function esc(s){return String(s).replace(/[&<>"]/g,function(c){return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c];});}
function botName(i){return D.bots[i]!==undefined?D.bots[i]:'?';}
function moveList(g){
  var mv=g.m?g.m.split(' '):[],st=cur.states,h=[],first=st[0].side;
  for(var i=0;i<mv.length;i++){
    var k=first==='white'?i+1:i;
    if(k%2===0)h.push('<span class="no">'+(k/2+1)+'.</span>');
    else if(i===0)h.push('<span class="no">'+((k+1)/2)+'...</span>');
    var a=g.a&&g.a[i],extra='';
    if(a){if(a.g)extra+='<span class="nag'+(a.g==='!'?' good':'')+'">'+esc(a.g)+'</span>';
      if(a.e!==undefined)extra+='<span class="ev">'+esc(a.e)+'</span>';}
    h.push('<span class="mv" data-ply="'+(i+1)+'"'+(a&&a.c?' title="'+esc(a.c)+'"':'')+'>'+esc(mv[i])+extra+'</span> ');
  }
  document.getElementById('moves').innerHTML=h.join('');
}
function info(g){
  var e=document.getElementById('ginfo');if(!e)return;
  var res=g.r==='1-0'?'Black won':g.r==='0-1'?'White won':'unfinished';
  e.innerHTML='<div class="players">'+(g.n!==undefined?'Game '+g.n+': ':'')+esc(botName(g.b))+' (Black) vs '+esc(botName(g.w))+' (White)</div>'+
    '<div>'+esc(g.r)+' &middot; '+res+' &middot; '+esc(g.t)+(g.y?' &middot; <span class="why">'+esc(g.y)+'</span>':'')+
    ' &middot; '+(g.m?g.m.split(' ').length:0)+' plies</div>';
}
function select(gi,ply){
  var g=D.games[gi];if(!g)return;
  if(cur.gi!==gi){cur.gi=gi;cur.states=states(g);moveList(g);info(g);
    V.querySelectorAll('.evalgraph').forEach(function(e){e.style.display=e.getAttribute('data-gi')===String(gi)?'':'none';});
    var s=document.getElementById('slider');s.max=String(cur.states.length-1);
    document.querySelectorAll('#glist tbody tr').forEach(function(tr){tr.classList.toggle('cur',tr.getAttribute('data-gi')===String(gi));});}
  go(ply===undefined?cur.states.length-1:ply);
}
function go(ply){
  var g=D.games[cur.gi],n=cur.states.length-1;
  ply=Math.max(0,Math.min(n,ply|0));cur.ply=ply;draw(g,ply);
  document.getElementById('slider').value=String(ply);
  document.getElementById('plylabel').textContent='ply '+ply+' / '+n;
  var box=document.getElementById('moves');
  box.querySelectorAll('.mv').forEach(function(m){var c=m.getAttribute('data-ply')===String(ply);m.classList.toggle('cur',c);
    if(c&&(m.offsetTop<box.scrollTop||m.offsetTop>box.scrollTop+box.clientHeight-24))box.scrollTop=m.offsetTop-box.clientHeight/2;});
  var gr=document.querySelector('.evalgraph[data-gi="'+cur.gi+'"] svg'),c=gr&&gr.querySelector('.cursor');
  if(c){var x=(parseFloat(gr.getAttribute('data-x0'))+ply*parseFloat(gr.getAttribute('data-dx'))).toFixed(1);c.setAttribute('x1',x);c.setAttribute('x2',x);}
  V.setAttribute('data-game',String(g.n!==undefined?g.n:cur.gi+1));V.setAttribute('data-ply',String(ply));
  V.setAttribute('data-fen',fenOf(cur.states[ply]));
  var h='#game='+(g.n!==undefined?g.n:cur.gi+1)+'&ply='+ply;
  if(location.hash!==h&&history.replaceState)history.replaceState(null,'',h);
}
function gameIndex(n){for(var i=0;i<D.games.length;i++){if(String(D.games[i].n!==undefined?D.games[i].n:i+1)===String(n))return i;}return -1;}
function fromHash(){
  var q={};location.hash.replace(/^#/,'').split('&').forEach(function(kv){var p=kv.split('=');if(p[0])q[p[0]]=decodeURIComponent(p[1]||'');});
  if(q.selftest!==undefined){selftest();}
  var gi=q.game!==undefined?gameIndex(q.game):(cur.gi>=0?cur.gi:0);
  if(gi<0){window.konaneError('no game '+q.game+' in this file');gi=0;}
  select(gi,q.ply!==undefined?parseInt(q.ply,10):undefined);
}
function selftest(){
  var bad=0;
  D.games.forEach(function(g){var st=states(g);if(g.f&&fenOf(st[st.length-1])!==g.f)bad++;});
  var r=bad===0?'ok '+D.games.length:'failed '+bad;
  document.body.setAttribute('data-selftest',r);return r;
}

// ---- the game list and its filters (report only): rows for the first matches only, more on
// request, so a page of thousands of games stays light
function gameList(){
  var t=document.getElementById('glist');if(!t)return;
  var body=t.querySelector('tbody'),limit=100,match=[];
  var fb=document.getElementById('fbot'),fr=document.getElementById('fres'),ft=document.getElementById('fterm'),more=document.getElementById('gmore');
  D.bots.forEach(function(b,i){var o=document.createElement('option');o.value=String(i);o.textContent=b;fb.appendChild(o);});
  var terms={};D.games.forEach(function(g){terms[g.t]=(terms[g.t]||0)+1;});
  Object.keys(terms).sort().forEach(function(k){var o=document.createElement('option');o.value=k;o.textContent=k+' ('+terms[k]+')';ft.appendChild(o);});
  function keep(g){
    var b=fb.value,r=fr.value,tm=ft.value,ok=true;
    if(b!==''){var bi=+b;if(r==='win')ok=(g.r==='1-0'&&g.b===bi)||(g.r==='0-1'&&g.w===bi);else if(r==='loss')ok=(g.r==='1-0'&&g.w===bi)||(g.r==='0-1'&&g.b===bi);else ok=g.b===bi||g.w===bi;}
    if(ok&&(r==='1-0'||r==='0-1'||r==='*'))ok=g.r===r;
    if(ok&&tm!=='')ok=g.t===tm;
    return ok;
  }
  function render(){
    var rows=[];
    match.slice(0,limit).forEach(function(i){var g=D.games[i];
      rows.push('<tr data-gi="'+i+'"'+(i===cur.gi?' class="cur"':'')+'><td>'+g.n+'</td><td>'+esc(g.rd||'')+'</td><td class="l">'+esc(botName(g.b))+'</td><td class="l">'+esc(botName(g.w))+
        '</td><td>'+esc(g.r)+'</td><td>'+(g.m?g.m.split(' ').length:0)+'</td><td class="l">'+esc(g.t)+'</td></tr>');});
    body.innerHTML=rows.join('');
    more.style.display=match.length>limit?'':'none';
    more.textContent='show '+Math.min(200,match.length-limit)+' more';
    document.getElementById('gcount').textContent=match.length+' of '+D.games.length+' games';
  }
  function filter(){match=[];D.games.forEach(function(g,i){if(keep(g))match.push(i);});limit=100;render();}
  [fb,fr,ft].forEach(function(s){s.addEventListener('change',filter);});
  more.addEventListener('click',function(){limit+=200;render();});
  filter();
  t.addEventListener('click',function(ev){var tr=ev.target.closest('tr[data-gi]');if(tr){select(+tr.getAttribute('data-gi'),0);V.scrollIntoView&&V.scrollIntoView({block:'start'});}});
}

// ---- wiring
function wire(){
  if(!V)return; // a report with no games yet has no viewer
  function btn(id,f){var b=document.getElementById(id);if(b)b.addEventListener('click',f);}
  btn('b-first',function(){go(0);});btn('b-prev',function(){go(cur.ply-1);});
  btn('b-next',function(){go(cur.ply+1);});btn('b-last',function(){go(cur.states.length-1);});
  document.getElementById('slider').addEventListener('input',function(ev){go(parseInt(ev.target.value,10));});
  document.getElementById('moves').addEventListener('click',function(ev){var m=ev.target.closest('.mv');if(m)go(+m.getAttribute('data-ply'));});
  V.addEventListener('click',function(ev){var c=ev.target.closest('.evalgraph [data-ply]');if(c)go(+c.getAttribute('data-ply'));});
  document.addEventListener('keydown',function(ev){
    var tag=(ev.target&&ev.target.tagName)||'';if(tag==='INPUT'||tag==='SELECT'||tag==='TEXTAREA')return;
    if(ev.key==='ArrowLeft'){go(cur.ply-1);ev.preventDefault();}
    else if(ev.key==='ArrowRight'){go(cur.ply+1);ev.preventDefault();}
    else if(ev.key==='Home'){go(0);ev.preventDefault();}
    else if(ev.key==='End'){go(cur.states.length-1);ev.preventDefault();}
  });
  window.addEventListener('hashchange',fromHash);
}
var t0=(window.performance&&performance.now)?performance.now():0;
gameList();wire();
if(D.games.length>0)fromHash();
document.body.setAttribute('data-ready','1');
if(window.performance&&performance.now){document.body.setAttribute('data-init-ms',(performance.now()-t0).toFixed(1));
  document.body.setAttribute('data-open-ms',performance.now().toFixed(1));}
window.konaneViewer={go:go,select:select,selftest:selftest,fen:function(){return fenOf(cur.states[cur.ply]);}};
})();
]==]

--- html(opts) -> text: the viewer block (#viewer): the board templates, the controls, the game
-- information and the move list. opts.boards: list of "RxC" keys (one template each);
-- opts.below: HTML under the board (the evaluation graph).
function M.html(opts)
  local o = { '<div id="viewer"><div><div class="board">' }
  for i, key in ipairs(opts.boards) do
    local rows, cols = key:match("^(%d+)x(%d+)$")
    local t = svg.template(tonumber(rows), tonumber(cols), { id = "kb" .. i })
    o[#o + 1] = (t:gsub("^<svg ", ('<svg data-board="%s" data-active="%s" ')
      :format(key, i == 1 and "true" or "false"), 1))
  end
  o[#o + 1] = '</div><div class="ctl">'
    .. '<button id="b-first" title="first (Home)">&laquo;</button>'
    .. '<button id="b-prev" title="back (Left arrow)">&lsaquo;</button>'
    .. '<button id="b-next" title="forward (Right arrow)">&rsaquo;</button>'
    .. '<button id="b-last" title="last (End)">&raquo;</button>'
    .. '<input id="slider" type="range" min="0" max="0" value="0" aria-label="ply">'
    .. '<span id="plylabel"></span></div>'
  o[#o + 1] = opts.below or ""
  o[#o + 1] = '</div><div><div id="ginfo"></div><div id="moves"></div></div></div>'
  return table.concat(o)
end

--- json(data) -> text: compact JSON safe inside a <script> element ('<', '>' and '&', which
-- JSON has only inside strings, written as \u escapes).
function M.json(data)
  return (json.encode(data, { compact = true }):gsub("[<>&]", function(c)
    return ("\\u%04x"):format(c:byte())
  end))
end

-- Where the games go in the page data's JSON when they come as a list of texts (page_parts):
-- control bytes, which encode never leaves in its text.
local GAMES_MARK = "\1games\1"

--- page_parts(title, body, data [, games]) -> list of texts: the page of page() in pieces,
-- whose concatenation is the page. 'games' (optional): the JSON texts of data.games' entries
-- (entry_json, each already safe inside <script>), put into the data in place of data.games
-- without joining them: a large tournament's page is written piece by piece, never copied
-- whole.
function M.page_parts(title, body, data, games)
  local parts = {
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    "<title>", svg.escape(title), "</title><style>", M.CSS, "</style>",
    "<script>", M.TRAP, "</script></head><body><main>",
    body,
    '<pre id="errors" data-count="0"></pre>',
    '</main><script type="application/json" id="kn-data">',
  }
  if games then
    data.games = json.raw(GAMES_MARK)
    local before, after = M.json(data):match("^(.-)" .. GAMES_MARK .. "(.*)$")
    parts[#parts + 1] = before .. "["
    for i, text in ipairs(games) do
      parts[#parts + 1] = i > 1 and "," or ""
      parts[#parts + 1] = text
    end
    parts[#parts + 1] = "]" .. after
  else
    parts[#parts + 1] = M.json(data)
  end
  for _, text in ipairs { "</script>", "<script>", M.JS, "</script></body></html>\n" } do
    parts[#parts + 1] = text
  end
  return parts
end

--- page(title, body, data) -> text: a whole self-contained HTML page: the styles, 'body', the
-- data as JSON and the scripts, nothing loaded from anywhere.
function M.page(title, body, data)
  return table.concat(M.page_parts(title, body, data))
end

-- The start position text of the variant's own start on a board (cached in 'data').
local function default_start(data, variant, rows, cols)
  data._default_start = data._default_start or {}
  local key = ("%s %sx%s"):format(tostring(variant), tostring(rows), tostring(cols))
  local v = data._default_start[key]
  if v == nil then
    v = require("konane").new { variant = variant, rows = rows, cols = cols }:start_fen()
    data._default_start[key] = v
  end
  return v
end

--- game_entry(record, data, index [, checked]) -> table: the compact form of one record for
-- the page data. 'data' holds the shared lists (bots, boards, starts) this adds to; 'index'
-- maps bot names to positions. The record is replayed with the engine (canonical moves, start
-- and final position texts: the page checks its own replay against the final one), unless
-- 'checked' says its moves are a referee's canonical moves already (a tournament's games as
-- they end): then they are taken as they are, with no final position, which saves the replay.
function M.game_entry(record, data, index, checked)
  local g, start, moves, rows, cols
  if checked then
    rows, cols = record.rows, record.cols
    start = record.fen or default_start(data, record.variant, rows, cols)
    moves = table.concat(record.moves, " ")
  else
    g = require("konane.pgn").replay(record)
    start, moves, rows, cols = g:start_fen(), table.concat(g:history(), " "), g:rows(), g:cols()
  end
  local function intern(list, map, v)
    if map[v] == nil then
      list[#list + 1] = v
      map[v] = #list - 1
    end
    return map[v]
  end
  data._start_index = data._start_index or {}
  data._board_index = data._board_index or {}
  local b = intern(data.bots, index, record.black or record.tags and record.tags.Black or "?")
  local w = intern(data.bots, index, record.white or record.tags and record.tags.White or "?")
  local e = {
    b = b, w = w, r = record.result or "*",
    t = record.termination or (record.result ~= "*" and "normal") or "unfinished",
    y = record.reason, m = moves,
    f = g and g:fen(),
    k = intern(data.boards, data._board_index, ("%dx%d"):format(rows, cols)),
    s = intern(data.starts, data._start_index, start),
  }
  if e.s == 0 then e.s = nil end
  if e.k == 0 then e.k = nil end
  return e, g
end

-- The members of a game entry between "b" and "w", and after "w", in the order json.encode
-- writes an object's members (sorted).
local MID_KEYS = { "f", "k", "m", "n", "r", "rd", "s", "t" }
local TAIL_KEYS = { "y" }

local function members(e, keys)
  local out = {}
  for _, k in ipairs(keys) do
    local v = e[k]
    if v ~= nil then
      out[#out + 1] = ',"' .. k .. '": ' .. (type(v) == "string" and json.quote(v) or json.encode(v, { compact = true }))
    end
  end
  return table.concat(out)
end

--- entry_parts(e) -> mid, tail: a game entry (game_entry's members, with n and rd) as JSON in
-- pieces, its bots left out: '{"b": ' .. B .. mid .. ',"w": ' .. W .. tail .. '}' is
-- json.encode(e, {compact = true}) with e.b = B and e.w = W. A tournament encodes each game
-- once as it ends, and the page puts the bots' final numbers in.
function M.entry_parts(e)
  return members(e, MID_KEYS), members(e, TAIL_KEYS)
end

-- JSON text made safe inside a <script> element, as M.json does.
local function script_safe(text)
  if not text:find("[<>&]") then return text end
  return (text:gsub("[<>&]", function(c) return ("\\u%04x"):format(c:byte()) end))
end

--- entry_json(mid, tail, b, w) -> the JSON of an entry from entry_parts' pieces and its bots.
function M.entry_json(mid, tail, b, w)
  return '{"b": ' .. b .. mid .. ',"w": ' .. w .. tail .. "}"
end

--- entry_script(mid, tail, b, w) -> entry_json's text made safe inside a <script> element
-- ('<', '>' and '&' as \u escapes, as page() writes its data).
function M.entry_script(mid, tail, b, w)
  return '{"b": ' .. b .. script_safe(mid) .. ',"w": ' .. w .. script_safe(tail) .. "}"
end

--- new_data() -> the empty page data (bots, boards, starts, games lists).
function M.new_data()
  return { bots = json.list {}, boards = json.list {}, starts = json.list {}, games = json.list {} }
end

--- finish(data) -> data without the build-time indexes, ready to encode.
function M.finish(data)
  data._start_index, data._board_index, data._default_start = nil, nil, nil
  return data
end

return M
